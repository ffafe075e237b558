//! The host's values: a tape the guest wrote (`tape.rs` describes the
//! format) read into an arena, and presented to the renderer through the
//! names the guest's build takes from QuickJS (`qjs::JSValue`, its tags,
//! the views of the project's QuickJS patch), so that the host renders a
//! value with the same code the guest does, step for step.
//!
//! The guest is hostile, so the tape is read as untrusted input: every
//! count and length is checked against the bytes left before anything is
//! allocated for it, nesting is bounded, and the bytes of the strings and
//! keys the value holds are counted as they are read (a tape can describe
//! a shape of long keys once and use it many times). The arena holds at
//! most one value for each byte of the tape; the caller bounds the tape.

mod depth;
mod read;
mod views;

pub use depth::tape_depth;
pub use read::{MAX_TAPE_DEPTH, TapeError};
pub(super) use views::qjs;
pub(super) use views::{
    JS_CoderunObjectShape, JS_CoderunObjectSlot, JS_CoderunPlainArray, JS_CoderunPlainObject,
    JS_CoderunPristine, JS_CoderunString, JS_CoderunStringChars,
};

use super::inspect::Inspect;
use super::scan::Chars;
use read::Reader;
use views::qjs::JSValue;
use views::{StringNode, node};

/// A value's two texts, as the guest would have written them.
pub struct Rendered {
    /// Its JSON (`JSON.stringify`'s).
    pub json: String,
    /// Its display (`util.inspect`'s for a returned value, within the
    /// room; a string is itself, a lone surrogate U+FFFD).
    pub display: String,
}

/// Reads `tape` and renders the value it holds as JSON and, when `room`
/// is given, as a returned value's display within `room` UTF-16 units
/// (`Inspect::returned`). Refused once its strings and keys pass
/// `max_bytes` bytes.
pub fn render_tape(
    tape: &[u8],
    max_bytes: usize,
    room: Option<f64>,
) -> Result<Rendered, TapeError> {
    let mut reader = Reader::new(tape, max_bytes);
    let value = reader.value(0)?;
    if reader.at < tape.len() {
        return Err(TapeError::Trailing(tape.len() - reader.at));
    }
    let ctx = std::ptr::null_mut();
    let undefined = JSValue {
        tag: qjs::JS_TAG_UNDEFINED,
        bits: 0,
    };
    let json = if value.tag == qjs::JS_TAG_UNDEFINED {
        // JSON.stringify(undefined) writes nothing; a binding gets `null`.
        "null".to_owned()
    } else {
        super::json::json_raw(ctx, value, undefined).ok_or(TapeError::Declined)?
    };
    let display = match room {
        None => String::new(),
        Some(room) => match node::<StringNode>(value, qjs::JS_TAG_STRING) {
            Some(string) => match string.chars {
                Chars::Narrow(bytes) => bytes.iter().map(|&byte| char::from(byte)).collect(),
                Chars::Wide(units) => String::from_utf16_lossy(units),
            },
            None => {
                super::width::init();
                let mut state = Inspect::returned(room);
                super::inspect::inspect_value(ctx, value, &mut state, 0.0, None)
                    .ok_or(TapeError::Declined)?
            }
        },
    };
    drop(reader);
    Ok(Rendered { json, display })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags as tag;

    fn json(tape: &[u8]) -> Result<String, TapeError> {
        render_tape(tape, 1 << 20, None).map(|rendered| rendered.json)
    }

    fn u32s(n: u32) -> [u8; 4] {
        n.to_le_bytes()
    }

    #[test]
    fn a_tape_renders_as_its_values_do() {
        let tape = [
            &[tag::ARRAY][..],
            &u32s(7),
            &[tag::UNDEFINED, tag::NULL, tag::TRUE],
            &[tag::DOUBLE],
            &(-0.0f64).to_le_bytes(),
            &[tag::DOUBLE],
            &f64::NAN.to_le_bytes(),
            &[tag::NEW_SHAPE],
            &u32s(2),
            &[tag::NARROW],
            &u32s(1),
            b"a",
            &[tag::INT],
            &u32s(7),
            &[tag::UNDEFINED, tag::WIDE],
            &u32s(2),
            &0xd800u16.to_le_bytes(),
            &0xe9u16.to_le_bytes(),
            &[tag::SHAPE],
            &u32s(0),
            &[tag::INT],
            &u32s(u32::MAX),
            &[tag::NARROW],
            &u32s(1),
            &[0xe9],
        ]
        .concat();
        let rendered = render_tape(&tape, 1 << 20, Some(1000.0)).expect("a value");
        assert_eq!(
            rendered.json,
            "[null,null,true,0,null,{\"7\":\"\\ud800\u{e9}\"},{\"7\":\"\u{e9}\",\"a\":-1}]"
        );
        assert_eq!(
            rendered.display,
            "[\n  undefined,\n  null,\n  true,\n  -0,\n  NaN,\n  { '7': '\\ud800\u{e9}', a: undefined },\n  { '7': '\u{e9}', a: -1 }\n]"
        );
    }

    #[test]
    fn hostile_tapes_are_errors() {
        let many = [&[tag::ARRAY][..], &u32s(u32::MAX), &[tag::NULL]].concat();
        assert_eq!(json(&many).err(), Some(TapeError::Truncated(5)));
        let unknown = [&[tag::SHAPE][..], &u32s(3)].concat();
        assert_eq!(json(&unknown).err(), Some(TapeError::UnknownShape(3)));
        assert_eq!(
            json(&[42]).err(),
            Some(TapeError::UnknownTag { tag: 42, at: 0 })
        );
        assert_eq!(json(&[tag::NULL, 0]).err(), Some(TapeError::Trailing(1)));
        let deep = [&[tag::ARRAY, 1, 0, 0, 0][..]; MAX_TAPE_DEPTH + 1].concat();
        assert_eq!(
            json(&[&deep[..], &[tag::NULL]].concat()).err(),
            Some(TapeError::TooDeep)
        );
        // One shape of a long key, used by many objects: counted each time.
        let mut amplified = [
            &[tag::ARRAY][..],
            &u32s(1000),
            &[tag::NEW_SHAPE],
            &u32s(1),
            &[tag::NARROW],
            &u32s(10_000),
            &[b'k'; 10_000],
            &[tag::NULL],
        ]
        .concat();
        for _ in 1..1000 {
            amplified.extend_from_slice(&[tag::SHAPE, 0, 0, 0, 0, tag::NULL]);
        }
        assert_eq!(json(&amplified).err(), Some(TapeError::TooLarge(1 << 20)));
        for len in 0..amplified.len().min(64) {
            assert!(json(&amplified[..len]).is_err(), "{len} bytes");
        }
    }

    #[test]
    fn the_deepest_tape_the_guest_writes_renders() {
        let deep = [
            &[&[tag::ARRAY, 1, 0, 0, 0][..]; MAX_TAPE_DEPTH].concat()[..],
            &[tag::NULL],
        ]
        .concat();
        let json = json(&deep).expect("a value");
        assert_eq!(json.len(), 2 * MAX_TAPE_DEPTH + 4);
    }
}
