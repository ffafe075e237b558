//! The one rule for what is an identifier: for binding globals, for the
//! labels the guest names bindings by, and for the TypeScript SDK's
//! quoting.

use serde_json::Value;

use crate::error::MisuseError;

/// ECMAScript reserved words, including those reserved only in strict mode
/// or in modules (`await`, `let`, `static`, `yield`, ...).
const RESERVED_WORDS: &[&str] = &[
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// Globals the program and the runtime rely on, which a binding namespace
/// must not replace.
const RUNTIME_GLOBALS: &[&str] = &[
    "arguments",
    "eval",
    "undefined",
    "NaN",
    "Infinity",
    "globalThis",
    "console",
];

/// Whether `word` is an ECMAScript reserved word (in any mode).
pub fn is_reserved_word(word: &str) -> bool {
    RESERVED_WORDS.contains(&word)
}

/// Whether `name` can be written bare where JavaScript and TypeScript take an
/// identifier: an `IdentifierName` (Unicode `ID_Start` or `$`/`_`, then
/// `ID_Continue`, `$`, ZWNJ or ZWJ) that is not a reserved word. The one
/// rule for binding globals, for binding labels (`tools.search` against
/// `tools["delete"]`) and for the SDK's property keys. Reserved words are
/// not identifiers here, although TypeScript accepts some as property names,
/// so that one rule decides quoting everywhere.
///
/// ```
/// use coderun_runtime::is_identifier;
///
/// assert!(is_identifier("search") && is_identifier("$x") && is_identifier("日本"));
/// assert!(!is_identifier("my-tool") && !is_identifier("delete") && !is_identifier("1a"));
/// ```
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let starts = first == '$' || first == '_' || unicode_ident::is_xid_start(first);
    starts
        && chars.all(|c| {
            c == '$' || c == '\u{200c}' || c == '\u{200d}' || unicode_ident::is_xid_continue(c)
        })
        && !is_reserved_word(name)
}

/// How code names the member `name` of `object`: `tools.search`, or
/// `tools["my-tool"]` (a [`string_literal`]) when `name` is not an
/// identifier.
///
/// ```
/// use coderun_runtime::property_access;
///
/// assert_eq!(property_access("tools", "search"), "tools.search");
/// assert_eq!(property_access("tools", "delete"), "tools[\"delete\"]");
/// ```
pub fn property_access(object: &str, name: &str) -> String {
    if is_identifier(name) {
        format!("{object}.{name}")
    } else {
        format!("{object}[{}]", string_literal(name))
    }
}

/// `s` as a JavaScript string literal: JSON's escaping, plus U+2028 and
/// U+2029, which older parsers do not accept raw inside strings.
///
/// ```
/// use coderun_runtime::string_literal;
///
/// assert_eq!(string_literal("a\u{2028}b\"c"), "\"a\\u2028b\\\"c\"");
/// ```
pub fn string_literal(s: &str) -> String {
    // `Display` for `Value` writes into a `String`, which cannot fail.
    Value::from(s)
        .to_string()
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// Refuses a binding global that is not an identifier, is reserved, or is
/// a global the runtime needs.
pub(super) fn check_global(global: &str) -> Result<(), MisuseError> {
    // The name may come from a hostile record (a replay's bindings): the
    // refusal repeats at most 128 bytes of it.
    let invalid = |reason| MisuseError::InvalidBindingGlobal {
        global: crate::output::shorten(global, 128),
        reason,
    };
    if global.is_empty() {
        return Err(invalid("it is empty"));
    }
    if !is_identifier(global) && !is_reserved_word(global) {
        return Err(invalid("it is not a JavaScript identifier"));
    }
    if is_reserved_word(global) || RUNTIME_GLOBALS.contains(&global) {
        return Err(invalid(
            "it is a reserved word or a global the runtime needs",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_global_is_named_in_a_short_message() {
        for name in ["[".repeat(1 << 20), "\u{1}".repeat(1 << 20)] {
            let refusal = check_global(&name)
                .expect_err("not an identifier")
                .to_string();
            assert!(refusal.len() < 1024, "{} bytes", refusal.len());
        }
    }

    #[test]
    fn accepts_identifiers() {
        for ok in ["tools", "$x", "_", "日本", "a1"] {
            assert!(check_global(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn labels_follow_the_identifier_rule() {
        for (name, label) in [
            ("search", "tools.search"),
            ("$x", "tools.$x"),
            ("日本", "tools.日本"),
            ("my-tool", "tools[\"my-tool\"]"),
            ("delete", "tools[\"delete\"]"),
            ("__proto__", "tools.__proto__"),
            ("", "tools[\"\"]"),
            ("a\"b", "tools[\"a\\\"b\"]"),
            ("a\u{2028}", "tools[\"a\\u2028\"]"),
        ] {
            assert_eq!(property_access("tools", name), label, "{name:?}");
        }
    }

    #[test]
    fn refuses_non_identifiers_and_reserved_words() {
        for bad in [
            "",
            "not valid!",
            "1a",
            "my-tools",
            "await",
            "console",
            "class",
        ] {
            assert!(check_global(bad).is_err(), "{bad}");
        }
    }
}
