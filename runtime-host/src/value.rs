//! The returned value: JSON from the guest, capped in bytes.

use serde_json::Value;

use crate::json::{self, GuestJsonError};
use crate::output::{self, Output};

/// Decodes the guest's JSON text for the returned value.
///
/// A string longer than `max_bytes` is cut at a UTF-8 boundary and marked;
/// any other value whose JSON is longer comes back as its cut JSON text with
/// the marker. JSON that nests deeper than [`json::MAX_JSON_DEPTH`] comes
/// back as a string of its text, as does JSON that does not parse at all (a
/// hostile guest's garbage). Lone surrogates in strings become U+FFFD.
pub(crate) fn decode(text: &str, max_bytes: usize) -> Value {
    if text.len() > max_bytes && !text.starts_with('"') {
        return Value::String(output::cap(text.to_owned(), Output::Value, max_bytes));
    }
    match json::parse(text) {
        Ok(Value::String(s)) => Value::String(output::cap(s, Output::Value, max_bytes)),
        Ok(value) => value,
        Err(GuestJsonError::TooDeep(_) | GuestJsonError::Invalid(_)) => {
            Value::String(output::cap(text.to_owned(), Output::Value, max_bytes))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn small_values_round_trip() {
        assert_eq!(decode(r#"{"a":[1,2]}"#, 200), json!({"a": [1, 2]}));
    }

    #[test]
    fn long_strings_are_cut_on_char_boundaries_within_the_cap() {
        let long = format!("\"{}\"", "é".repeat(1000));
        let Value::String(s) = decode(&long, 200) else {
            panic!("not a string")
        };
        assert!(s.starts_with("éé"), "{s}");
        assert!(
            s.contains("2000 bytes, over config.max_value_bytes (200)"),
            "{s}"
        );
        assert!(s.len() <= 200, "{}", s.len());
    }

    #[test]
    fn large_objects_become_marked_strings() {
        let text = serde_json::to_string(&(0..1000).collect::<Vec<_>>()).unwrap();
        let Value::String(s) = decode(&text, 200) else {
            panic!("not a string")
        };
        assert!(s.starts_with("[0,1,2"), "{s}");
        assert!(s.contains("truncated by coderun"), "{s}");
    }

    #[test]
    fn garbage_and_deep_values_are_kept_as_text() {
        assert_eq!(decode("{nope", 200), json!("{nope"));
        let deep = format!("{}{}", "[".repeat(1001), "]".repeat(1001));
        assert_eq!(decode(&deep, 1 << 20), Value::String(deep));
    }

    #[test]
    fn lone_surrogates_arrive_as_replacement_characters() {
        assert_eq!(
            decode(r#"["\ud83d", "ok"]"#, 200),
            json!(["\u{fffd}", "ok"])
        );
    }
}
