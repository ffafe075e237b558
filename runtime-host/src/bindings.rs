//! Validation of binding namespaces, and the plan the guest is given.

use std::collections::HashSet;

use crate::error::MisuseError;
use crate::guest::Namespace;
use crate::request::{CodeBindingFunction, CodeBindingNamespace};

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

/// What the guest is told about the bindings, and the functions behind them
/// in the same order.
pub(crate) struct BindingPlan {
    pub(crate) namespaces: Vec<Namespace>,
    pub(crate) functions: Vec<Vec<CodeBindingFunction>>,
}

pub(crate) fn plan(bindings: &[CodeBindingNamespace]) -> Result<BindingPlan, MisuseError> {
    let mut seen = HashSet::new();
    let mut namespaces = Vec::with_capacity(bindings.len());
    let mut functions = Vec::with_capacity(bindings.len());
    for binding in bindings {
        let global = binding.global();
        check_global(global)?;
        if !seen.insert(global) {
            return Err(MisuseError::DuplicateBindingGlobal {
                global: global.to_owned(),
            });
        }
        namespaces.push(Namespace {
            global: global.to_owned(),
            functions: binding.functions().keys().cloned().collect(),
        });
        functions.push(binding.functions().values().cloned().collect());
    }
    Ok(BindingPlan {
        namespaces,
        functions,
    })
}

fn check_global(global: &str) -> Result<(), MisuseError> {
    let invalid = |reason| MisuseError::InvalidBindingGlobal {
        global: global.to_owned(),
        reason,
    };
    let mut chars = global.chars();
    let Some(first) = chars.next() else {
        return Err(invalid("it is empty"));
    };
    let starts = |c: char| c == '$' || c == '_' || c.is_alphabetic();
    let continues =
        |c: char| starts(c) || c.is_alphanumeric() || c == '\u{200c}' || c == '\u{200d}';
    if !starts(first) || !chars.all(continues) {
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
    fn accepts_identifiers() {
        for ok in ["tools", "$x", "_", "日本", "a1"] {
            assert!(check_global(ok).is_ok(), "{ok}");
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
