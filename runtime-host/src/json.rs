//! JSON text from the guest: binding arguments and returned values.
//!
//! The guest is hostile, so its JSON is checked before it becomes a
//! `serde_json::Value`: how deeply it nests is measured first (a deep value
//! would overflow the stack of whoever drops, clones or prints it, embedders
//! included), and escapes of lone UTF-16 surrogates, which JavaScript strings
//! may hold and `JSON.stringify` writes as `\udXXX` but Rust strings cannot,
//! become U+FFFD.

use std::borrow::Cow;

use serde::Deserialize as _;
use serde_json::Value;

/// The deepest nesting of arrays and objects a value may have to cross the
/// boundary: far beyond any tool argument, and shallow enough that a
/// `serde_json::Value` of this depth can be dropped, cloned, compared,
/// serialised or debug-printed on a 2 MiB thread.
pub(crate) const MAX_JSON_DEPTH: usize = 1000;

/// Why a JSON text from the guest was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GuestJsonError {
    #[error("it nests deeper than {0} levels of arrays and objects")]
    TooDeep(usize),
    #[error("it is not valid JSON ({0})")]
    Invalid(String),
}

/// Parses the guest's JSON `text`.
pub(crate) fn parse(text: &str) -> Result<Value, GuestJsonError> {
    parse_within(text, MAX_JSON_DEPTH)
}

/// Parses JSON `text` that may nest `max_depth` levels.
pub(crate) fn parse_within(text: &str, max_depth: usize) -> Result<Value, GuestJsonError> {
    let depth = depth(text);
    if depth > max_depth {
        return Err(GuestJsonError::TooDeep(max_depth));
    }
    let text = repair_surrogates(text);
    let deserialise = || {
        let mut deserializer = serde_json::Deserializer::from_str(&text);
        // The depth is already known to be bounded.
        deserializer.disable_recursion_limit();
        Value::deserialize(&mut deserializer)
            .and_then(|value| deserializer.end().map(|()| value))
            .map_err(|error| GuestJsonError::Invalid(error.to_string()))
    };
    // A shallow value (nearly every binding argument) parses on the
    // caller's stack. Asking `stacker` costs more than the parse there: the
    // host imports run on the guest's fiber, whose stack `stacker` cannot
    // see, so it would map a fresh stack for every call.
    if depth <= SHALLOW_DEPTH {
        return deserialise();
    }
    // serde's deserializer recurses once per level, with frames of up to a
    // few KiB in unoptimised builds: on a stack of its own when the
    // caller's has too little left.
    let needed = 64 * 1024 + depth * STACK_BYTES_PER_LEVEL;
    stacker::maybe_grow(needed, needed, deserialise)
}

/// Stack one level of nesting may take while deserialising.
const STACK_BYTES_PER_LEVEL: usize = 4 * 1024;

/// The deepest nesting parsed without `stacker`: at most 64 KiB of frames,
/// well within what every caller has left (the host imports have 1 MiB of
/// the guest's fiber stack; threads have 2 MiB or more).
pub(crate) const SHALLOW_DEPTH: usize = 16;

/// The deepest nesting of `[` and `{` outside strings.
fn depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &byte in text.as_bytes() {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// `text` with every `\uXXXX` escape of a lone surrogate (one not part of a
/// high-low pair) replaced by `\ufffd`.
fn repair_surrogates(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let surrogate_at = |at: usize| -> Option<u16> {
        let hex = bytes.get(at..at + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        let unit = u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()?;
        (0xd800..=0xdfff).contains(&unit).then_some(unit)
    };
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'\\' {
            at += 1;
            continue;
        }
        // An escape: `\uXXXX` or `\` and one character.
        let Some(unit) = surrogate_at(at) else {
            at += 2;
            continue;
        };
        let paired = (0xd800..0xdc00).contains(&unit)
            && surrogate_at(at + 6).is_some_and(|low| (0xdc00..=0xdfff).contains(&low));
        if paired {
            at += 12;
            continue;
        }
        let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
        out.push_str(&text[copied..at]);
        out.push_str("\\ufffd");
        at += 6;
        copied = at;
    }
    match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(parse(r#""a\ud83db""#), Ok(json!("a\u{fffd}b")));
        assert_eq!(parse(r#""\ude00""#), Ok(json!("\u{fffd}")));
        assert_eq!(
            parse(r#"["\ud83d\ude00", "\ud83d"]"#),
            Ok(json!(["😀", "\u{fffd}"]))
        );
        assert_eq!(parse(r#"{"\udc00x": 1}"#), Ok(json!({"\u{fffd}x": 1})));
        // An escaped backslash before `u` is not an escape of a surrogate.
        assert_eq!(parse(r#""\\ud800""#), Ok(json!("\\ud800")));
    }

    #[test]
    fn deep_values_parse_up_to_the_limit() {
        let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&deep(MAX_JSON_DEPTH)).is_ok());
        assert_eq!(
            parse(&deep(MAX_JSON_DEPTH + 1)),
            Err(GuestJsonError::TooDeep(MAX_JSON_DEPTH))
        );
        // Brackets inside strings do not count.
        let text = format!("\"{}\"", "[".repeat(10_000));
        assert!(parse(&text).is_ok());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for text in ["", "{", "[1,]", "\"\\u12\"", "nul", "1 2", "\"\\ud800\\u"] {
            assert!(
                matches!(parse(text), Err(GuestJsonError::Invalid(_))),
                "{text}"
            );
        }
    }
}
