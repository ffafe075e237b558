//! `JSON.stringify(value, replacer, space)` with an indent: the value's
//! JSON written as without one, then laid out on lines in one pass over
//! that text, as ECMA-262's SerializeJSONObject and SerializeJSONArray lay
//! it out with a `gap`: an object or array with entries opens a line for
//! each, indented by the gap once per level, and closes on a line of its
//! own; an empty one stays `{}` or `[]`; a key's colon is followed by a
//! space. The text is the writer's own JSON, so outside its strings there
//! are only brackets, commas, colons, numbers and literals.

use super::qjs;

use super::scan::{Chars, Held, string_end};

/// The longest gap: ECMA-262 takes at most ten spaces or characters.
const MAX_GAP: usize = 10;

/// The gap `space` gives (JSON.stringify's steps 5 to 8): none for
/// `undefined`, `null` or a boolean; a number's integer part of spaces, at
/// most ten; a string's first ten characters. `None` for what QuickJS's
/// own function is left to read: an object (a Number or String object is
/// converted first), a symbol, a BigInt, a string with a character that is
/// not ASCII (its first ten UTF-16 units could split a pair).
pub(super) fn gap(ctx: *mut qjs::JSContext, space: qjs::JSValue) -> Option<([u8; MAX_GAP], usize)> {
    let mut gap = [b' '; MAX_GAP];
    // SAFETY: reading a value's tag and payload.
    let len = match unsafe { qjs::JS_VALUE_GET_NORM_TAG(space) } {
        qjs::JS_TAG_UNDEFINED | qjs::JS_TAG_NULL | qjs::JS_TAG_BOOL => 0,
        // SAFETY: as above.
        qjs::JS_TAG_INT => unsafe { qjs::JS_VALUE_GET_INT(space) }.clamp(0, 10) as usize,
        qjs::JS_TAG_FLOAT64 => {
            // SAFETY: as above.
            let n = unsafe { qjs::JS_VALUE_GET_FLOAT64(space) };
            // ToIntegerOrInfinity, then min(10, ·); NaN is 0, and below 1
            // there is no gap.
            if n >= 10.0 {
                10
            } else if n >= 1.0 {
                n as usize
            } else {
                0
            }
        }
        qjs::JS_TAG_STRING | qjs::JS_TAG_STRING_ROPE => {
            let held = Held::of(ctx, space)?;
            let Chars::Narrow(bytes) = held.chars() else {
                return None;
            };
            let bytes = &bytes[..bytes.len().min(MAX_GAP)];
            if !bytes.is_ascii() {
                return None;
            }
            gap[..bytes.len()].copy_from_slice(bytes);
            bytes.len()
        }
        _ => return None,
    };
    Some((gap, len))
}

/// `json` (the writer's JSON of a value, without an indent) laid out with
/// `gap` (ASCII, not empty). `None` when memory for the text cannot be
/// had, or the text is not what the writer writes: QuickJS's own function
/// then writes it, and meets the same condition itself.
pub(super) fn indented(json: &str, gap: &[u8]) -> Option<String> {
    let text = json.as_bytes();
    let mut out = Out::default();
    out.reserve(text.len() + text.len() / 2)?;
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(&byte) = text.get(at) {
        match byte {
            b'"' => {
                // The string as it is, escapes and all.
                let mut end = at + 1;
                loop {
                    end = string_end(text, end);
                    match text.get(end) {
                        Some(b'"') => break,
                        Some(b'\\') => end += 2,
                        _ => return None,
                    }
                }
                out.push(&text[at..=end])?;
                at = end + 1;
            }
            b'{' | b'[' => {
                let close = if byte == b'{' { b'}' } else { b']' };
                if text.get(at + 1) == Some(&close) {
                    out.push(&[byte, close])?;
                    at += 2;
                } else {
                    depth += 1;
                    out.push(&[byte])?;
                    out.line(gap, depth)?;
                    at += 1;
                }
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                out.line(gap, depth)?;
                out.push(&[byte])?;
                at += 1;
            }
            b',' => {
                out.push(b",")?;
                out.line(gap, depth)?;
                at += 1;
            }
            b':' => {
                out.push(b": ")?;
                at += 1;
            }
            _ => {
                // A number or a literal: up to the next bracket, comma or
                // the end.
                let end = text[at..]
                    .iter()
                    .position(|&b| matches!(b, b',' | b'}' | b']' | b':'))
                    .map_or(text.len(), |len| at + len);
                out.push(&text[at..end])?;
                at = end;
            }
        }
    }
    if depth != 0 {
        return None;
    }
    // SAFETY: only whole strings and ASCII were copied from UTF-8 text, and
    // the gap is ASCII, so the text is UTF-8.
    Some(unsafe { String::from_utf8_unchecked(out.bytes) })
}

/// The text being laid out, grown only as memory allows.
#[derive(Default)]
struct Out {
    bytes: Vec<u8>,
    /// The gap written as many times as the deepest line so far needed.
    indentation: Vec<u8>,
}

impl Out {
    fn reserve(&mut self, more: usize) -> Option<()> {
        self.bytes.try_reserve(more).ok()
    }

    fn push(&mut self, bytes: &[u8]) -> Option<()> {
        self.reserve(bytes.len())?;
        self.bytes.extend_from_slice(bytes);
        Some(())
    }

    /// A line break and `depth` gaps, copied at once.
    fn line(&mut self, gap: &[u8], depth: usize) -> Option<()> {
        let len = gap.len().checked_mul(depth)?;
        while self.indentation.len() < len {
            self.indentation.try_reserve(gap.len()).ok()?;
            self.indentation.extend_from_slice(gap);
        }
        self.reserve(len.checked_add(1)?)?;
        self.bytes.push(b'\n');
        self.bytes.extend_from_slice(&self.indentation[..len]);
        Some(())
    }
}
