//! The returned value: JSON from the guest, capped in bytes.

use serde_json::Value;

use crate::json::{self, GuestJsonError};
use crate::output::{self, Output};

/// The longest tape the host reads for a value whose JSON may take
/// `max_bytes` (a binding's argument, the returned value): twice that and
/// 4 KiB, the guest's bound too (`guest-js-engine/src/engine.rs`), past
/// which it writes JSON. It bounds what reading a tape allocates: at most
/// one value, of a few dozen bytes, for each byte of it.
pub(crate) fn max_tape_bytes(max_bytes: usize) -> usize {
    max_bytes.saturating_mul(2).saturating_add(4096)
}

/// `render` of `tape` (reading it and rendering it, which recurse once a
/// level, with frames of a few KiB in unoptimised builds), on a stack of
/// its own when the tape nests deeper than a shallow value does: a binding
/// call's argument is read on the guest's fiber, where host imports have
/// 1 MiB (see `json.rs`).
pub(crate) fn with_stack_for<T>(tape: &[u8], render: impl FnOnce() -> T) -> T {
    let depth = coderun_render::tape_depth(tape).min(coderun_render::MAX_TAPE_DEPTH + 1);
    if depth <= json::SHALLOW_DEPTH {
        return render();
    }
    let needed = 64 * 1024 + depth * TAPE_STACK_PER_LEVEL;
    stacker::maybe_grow(needed, needed, render)
}

/// Stack one level of a tape may take while it is read and rendered.
const TAPE_STACK_PER_LEVEL: usize = 16 * 1024;

/// The returned value's JSON and display text, written by the host from
/// the guest's tape of it (`coderun_render::render_tape`), or a failure's
/// message for a tape no guest writes.
pub(crate) fn from_tape(tape: &[u8], max_bytes: usize) -> Result<(String, String), String> {
    if tape.len() > max_tape_bytes(max_bytes) {
        return Err(format!(
            "the returned value's tape is {} bytes, more than the guest writes for a cap of \
             {max_bytes}",
            tape.len()
        ));
    }
    // The room of the display is the cap, in UTF-16 units, as the guest's
    // was; its strings and keys may add up to eight times the cap (keys are
    // written once per shape in a tape, and in every object in JSON), and
    // the JSON is then cut to the cap.
    let room = f64::from(u32::try_from(max_bytes).unwrap_or(u32::MAX));
    let rendered = with_stack_for(tape, || {
        coderun_render::render_tape(tape, max_bytes.saturating_mul(8), Some(room))
    });
    match rendered {
        Ok(rendered) => Ok((rendered.json, rendered.display)),
        Err(coderun_render::TapeError::TooLarge(_)) => {
            let marker = output::marker(Output::Value, None, max_bytes);
            Ok((serde_json::to_string(&marker).unwrap_or_default(), marker))
        }
        Err(error) => Err(format!("the returned value could not be read: {error}")),
    }
}

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
