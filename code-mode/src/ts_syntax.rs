//! TypeScript syntax the SDK and the bridge's messages write: names (bare
//! when they are identifiers, by the runtime's one rule, else quoted),
//! string literals, member access and JSDoc.

pub use coderun_runtime::{is_identifier, string_literal};

/// One level of indentation in generated TypeScript.
pub(crate) const INDENT: &str = "  ";

/// `level` levels of indentation.
pub(crate) fn indentation(level: usize) -> String {
    INDENT.repeat(level)
}

/// A property key or method name: bare when it is an identifier, otherwise
/// a string literal.
pub(crate) fn property_key(name: &str) -> String {
    if is_identifier(name) {
        name.to_owned()
    } else {
        string_literal(name)
    }
}

/// How code reaches `name` on `object`: `tools.search`, `tools["my-tool"]`;
/// the same spelling the guest's error messages use for a binding.
pub(crate) fn member_access(object: &str, name: &str) -> String {
    coderun_runtime::property_access(object, name)
}

/// A one-line JSDoc comment, or `None` for an empty description: control
/// characters and runs of whitespace collapse to one space, and `*/` is
/// written `*\/`.
pub(crate) fn jsdoc(description: &str) -> Option<String> {
    let cleaned: String = description
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    if words.is_empty() {
        return None;
    }
    Some(format!("/** {} */", words.join(" ").replace("*/", "*\\/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_bare_only_when_they_are_identifiers() {
        assert_eq!(property_key("read"), "read");
        assert_eq!(property_key("my-tool"), "\"my-tool\"");
        assert_eq!(property_key("delete"), "\"delete\"");
        assert_eq!(property_key("délai"), "délai");
        assert_eq!(member_access("tools", "read"), "tools.read");
        assert_eq!(member_access("tools", "delete"), "tools[\"delete\"]");
    }

    #[test]
    fn string_literals_escape_line_separators() {
        assert_eq!(string_literal("a\u{2028}b\"c"), "\"a\\u2028b\\\"c\"");
    }

    #[test]
    fn jsdoc_is_one_escaped_line() {
        assert_eq!(
            jsdoc("  a\n\tb */ c ").as_deref(),
            Some("/** a b *\\/ c */")
        );
        assert_eq!(jsdoc(" \n "), None);
    }
}
