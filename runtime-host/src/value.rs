//! The returned value: JSON from the guest, capped in bytes.

use serde_json::Value;

/// The longest prefix of `s` that is at most `max` bytes and ends on a char
/// boundary.
pub(crate) fn truncate_utf8(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn marker(total: usize, max: usize) -> String {
    format!("…[truncated by coderun: the value was {total} bytes, max_value_bytes is {max}]")
}

/// Decodes the guest's JSON text for the returned value.
///
/// A string longer than `max_bytes` is cut at a UTF-8 boundary and marked;
/// any other value whose JSON is longer comes back as its cut JSON text with
/// the marker. JSON that does not parse as a value (too deep for the parser,
/// or a hostile guest's garbage) comes back as a string of the text itself.
pub(crate) fn decode(json: &str, max_bytes: usize) -> Value {
    if json.starts_with('"')
        && let Ok(s) = serde_json::from_str::<String>(json)
    {
        if s.len() <= max_bytes {
            return Value::String(s);
        }
        let mut cut = truncate_utf8(&s, max_bytes).to_owned();
        cut.push_str(&marker(s.len(), max_bytes));
        return Value::String(cut);
    }
    if json.len() > max_bytes {
        let mut cut = truncate_utf8(json, max_bytes).to_owned();
        cut.push_str(&marker(json.len(), max_bytes));
        return Value::String(cut);
    }
    serde_json::from_str(json).unwrap_or_else(|_| Value::String(json.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn small_values_round_trip() {
        assert_eq!(decode(r#"{"a":[1,2]}"#, 100), json!({"a": [1, 2]}));
    }

    #[test]
    fn long_strings_are_cut_on_char_boundaries() {
        let long = format!("\"{}\"", "é".repeat(10));
        let Value::String(s) = decode(&long, 5) else {
            panic!("not a string")
        };
        assert!(s.starts_with("éé…[truncated"), "{s}");
        assert!(s.contains("20 bytes"), "{s}");
    }

    #[test]
    fn large_objects_become_marked_strings() {
        let Value::String(s) = decode("[1,2,3,4,5,6]", 4) else {
            panic!("not a string")
        };
        assert!(s.starts_with("[1,2…[truncated"), "{s}");
    }

    #[test]
    fn garbage_is_kept_as_text() {
        assert_eq!(decode("{nope", 100), json!("{nope"));
    }
}
