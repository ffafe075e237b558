//! Binding arguments as the guest writes plain data natively: a tape of
//! the values as QuickJS holds them, unformatted (the format is described
//! in `guest-js-engine/src/render/tape.rs`), read here into a
//! `serde_json::Value` by JSON's rules. Formatting numbers and escaping
//! strings is then the host's native work instead of the guest's metered
//! work.
//!
//! The guest is hostile, so the tape is read as untrusted input: every
//! count and length is checked against the bytes left before anything is
//! allocated for it, nesting is bounded, and the bytes of the strings and
//! keys the value holds are counted as they are read: a tape can name a
//! shape of long keys once and use it many times, which would otherwise
//! make a value far larger than the tape.

use serde_json::{Map, Number, Value};

/// The deepest nesting a tape may have: the guest writes none deeper than
/// its renderer's bound (200 levels), and the reader recurses once a level.
pub(crate) const MAX_TAPE_DEPTH: usize = 256;

/// Why a tape was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TapeError {
    #[error("the tape ends inside a value at byte {0}")]
    Truncated(usize),
    #[error("the tape has an unknown tag {tag} at byte {at}")]
    UnknownTag { tag: u8, at: usize },
    #[error("the tape refers to shape {0}, which it has not described")]
    UnknownShape(u32),
    #[error("the tape nests deeper than {0} levels")]
    TooDeep(usize),
    #[error("the value's strings and keys alone are more than {0} bytes")]
    TooLarge(usize),
    #[error("the tape has {0} bytes after its value")]
    Trailing(usize),
}

mod tag {
    pub const UNDEFINED: u8 = 0;
    pub const NULL: u8 = 1;
    pub const FALSE: u8 = 2;
    pub const TRUE: u8 = 3;
    pub const INT: u8 = 4;
    pub const DOUBLE: u8 = 5;
    pub const NARROW: u8 = 6;
    pub const WIDE: u8 = 7;
    pub const ARRAY: u8 = 8;
    pub const NEW_SHAPE: u8 = 9;
    pub const SHAPE: u8 = 10;
}

/// Reads `tape` as a value by JSON's rules (an `undefined` or non-finite
/// element is `null`, an `undefined` property is left out, `-0` is `0`),
/// refusing it once its strings and keys pass `max_bytes` bytes.
pub(crate) fn decode(tape: &[u8], max_bytes: usize) -> Result<Value, TapeError> {
    let mut reader = Reader {
        tape,
        at: 0,
        shapes: Vec::new(),
        bytes: 0,
        max_bytes,
    };
    let value = reader.value(0)?.unwrap_or(Value::Null);
    match tape.len() - reader.at {
        0 => Ok(value),
        left => Err(TapeError::Trailing(left)),
    }
}

struct Reader<'a> {
    tape: &'a [u8],
    at: usize,
    /// The keys of each shape with keys described so far.
    shapes: Vec<Vec<String>>,
    /// The bytes of the strings and keys read so far, each key counted
    /// every time an object uses it.
    bytes: usize,
    max_bytes: usize,
}

impl Reader<'_> {
    fn take(&mut self, len: usize) -> Result<&[u8], TapeError> {
        let end = self
            .at
            .checked_add(len)
            .filter(|&end| end <= self.tape.len())
            .ok_or(TapeError::Truncated(self.at))?;
        let bytes = &self.tape[self.at..end];
        self.at = end;
        Ok(bytes)
    }

    fn u8(&mut self) -> Result<u8, TapeError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, TapeError> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// A count of items that each take at least one more byte of the tape:
    /// refused when the tape is shorter, before anything is allocated.
    fn count(&mut self) -> Result<usize, TapeError> {
        let count = self.u32()? as usize;
        if count > self.tape.len() - self.at {
            return Err(TapeError::Truncated(self.at));
        }
        Ok(count)
    }

    fn spend(&mut self, bytes: usize) -> Result<(), TapeError> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > self.max_bytes {
            return Err(TapeError::TooLarge(self.max_bytes));
        }
        Ok(())
    }

    /// A value; `None` for `undefined`.
    fn value(&mut self, depth: usize) -> Result<Option<Value>, TapeError> {
        let at = self.at;
        let tag = self.u8()?;
        self.spend(1)?;
        let value = match tag {
            tag::UNDEFINED => return Ok(None),
            tag::NULL => Value::Null,
            tag::FALSE => Value::Bool(false),
            tag::TRUE => Value::Bool(true),
            tag::INT => Value::from(self.u32()? as i32),
            tag::DOUBLE => {
                let bytes = self.take(8)?;
                number(f64::from_le_bytes(bytes.try_into().expect("eight bytes")))
            }
            tag::NARROW | tag::WIDE => Value::String(self.string(tag)?),
            tag::ARRAY | tag::NEW_SHAPE | tag::SHAPE => {
                if depth >= MAX_TAPE_DEPTH {
                    return Err(TapeError::TooDeep(MAX_TAPE_DEPTH));
                }
                if tag == tag::ARRAY {
                    let count = self.count()?;
                    let mut elements = Vec::with_capacity(count);
                    for _ in 0..count {
                        elements.push(self.value(depth + 1)?.unwrap_or(Value::Null));
                    }
                    Value::Array(elements)
                } else {
                    self.object(tag, depth)?
                }
            }
            tag => return Err(TapeError::UnknownTag { tag, at }),
        };
        Ok(Some(value))
    }

    /// A string of tag `tag` (its length and characters follow).
    fn string(&mut self, tag: u8) -> Result<String, TapeError> {
        let len = self.u32()? as usize;
        let string = if tag == tag::NARROW {
            let bytes = self.take(len)?;
            match std::str::from_utf8(bytes) {
                Ok(ascii) if ascii.is_ascii() => ascii.to_owned(),
                // Latin-1: each byte is the code point.
                _ => bytes.iter().map(|&byte| char::from(byte)).collect(),
            }
        } else {
            let bytes = self.take(len.checked_mul(2).ok_or(TapeError::Truncated(self.at))?)?;
            let units = bytes
                .chunks_exact(2)
                .map(|unit| u16::from_le_bytes([unit[0], unit[1]]));
            // A lone surrogate becomes U+FFFD, as in the guest's JSON.
            char::decode_utf16(units)
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect()
        };
        self.spend(string.len())?;
        Ok(string)
    }

    fn object(&mut self, tag: u8, depth: usize) -> Result<Value, TapeError> {
        let shape = if tag == tag::NEW_SHAPE {
            let count = self.count()?;
            let mut keys = Vec::with_capacity(count);
            for _ in 0..count {
                let at = self.at;
                let key = match self.u8()? {
                    tag @ (tag::NARROW | tag::WIDE) => self.string(tag)?,
                    tag::INT => self.u32()?.to_string(),
                    tag => return Err(TapeError::UnknownTag { tag, at }),
                };
                keys.push(key);
            }
            // Only a shape with keys is numbered (the guest writes one
            // with none as new each time).
            if keys.is_empty() {
                return Ok(Value::Object(Map::new()));
            }
            self.shapes.push(keys);
            self.shapes.len() - 1
        } else {
            let number = self.u32()?;
            let known = (number as usize) < self.shapes.len();
            if !known {
                return Err(TapeError::UnknownShape(number));
            }
            number as usize
        };
        let mut map = Map::new();
        for key in 0..self.shapes[shape].len() {
            let Some(value) = self.value(depth + 1)? else {
                continue;
            };
            let key = self.shapes[shape][key].clone();
            self.spend(key.len())?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

/// A double as `JSON.stringify` writes it, then read back as JSON:
/// `null` when it is not finite; an integer when its text is one.
fn number(n: f64) -> Value {
    if !n.is_finite() {
        return Value::Null;
    }
    // Below 2^53 an integral double is its own text (and -0 is "0").
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        return Value::from(n as i64);
    }
    // Larger integers below 10^21 are written as the shortest digits that
    // read back as the double, padded with zeros, which JSON then reads
    // as that integer when it fits in 64 bits.
    if n.fract() == 0.0 && n.abs() < 1e21 {
        let mut buffer = ryu_js::Buffer::new();
        let text = buffer.format_finite(n);
        if let Ok(integer) = text.parse::<i64>() {
            return Value::from(integer);
        }
        if let Ok(integer) = text.parse::<u64>() {
            return Value::from(integer);
        }
    }
    Number::from_f64(n).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tape(parts: &[&[u8]]) -> Vec<u8> {
        parts.concat()
    }

    #[test]
    fn values_read_by_json_rules() {
        let bytes = tape(&[
            &[tag::ARRAY],
            &6u32.to_le_bytes(),
            &[tag::UNDEFINED, tag::NULL, tag::TRUE],
            &[tag::DOUBLE],
            &(-0.0f64).to_le_bytes(),
            &[tag::DOUBLE],
            &f64::NAN.to_le_bytes(),
            &[tag::NEW_SHAPE],
            &2u32.to_le_bytes(),
            &[tag::NARROW],
            &1u32.to_le_bytes(),
            b"a",
            &[tag::INT],
            &7u32.to_le_bytes(),
            &[tag::UNDEFINED, tag::WIDE],
            &2u32.to_le_bytes(),
            &0xd800u16.to_le_bytes(),
            &0xe9u16.to_le_bytes(),
        ]);
        let value = decode(&bytes, 1000).expect("a value");
        assert_eq!(
            value,
            serde_json::json!([null, null, true, 0, null, { "7": "\u{fffd}\u{e9}" }])
        );
    }

    #[test]
    fn large_integers_read_as_their_json_text_does() {
        for n in [
            2f64.powi(60),
            -(2f64.powi(60)),
            1e20,
            2f64.powi(70),
            1e21,
            0.5,
        ] {
            let text = ryu_js::Buffer::new().format(n).to_owned();
            let expected: Value = serde_json::from_str(&text.replace("e+", "e")).expect("JSON");
            assert_eq!(number(n), expected, "{n}");
        }
    }

    #[test]
    fn hostile_tapes_are_errors() {
        let many = tape(&[&[tag::ARRAY], &u32::MAX.to_le_bytes(), &[tag::NULL]]);
        assert_eq!(decode(&many, 1000), Err(TapeError::Truncated(5)));
        let unknown = tape(&[&[tag::SHAPE], &3u32.to_le_bytes()]);
        assert_eq!(decode(&unknown, 1000), Err(TapeError::UnknownShape(3)));
        assert!(matches!(
            decode(&[42], 1000),
            Err(TapeError::UnknownTag { tag: 42, at: 0 })
        ));
        assert_eq!(decode(&[tag::NULL, 0], 1000), Err(TapeError::Trailing(1)));
        let deep = [&[tag::ARRAY, 1, 0, 0, 0][..]; MAX_TAPE_DEPTH + 1].concat();
        assert_eq!(
            decode(&deep, 1 << 20),
            Err(TapeError::TooDeep(MAX_TAPE_DEPTH))
        );
        // One shape of a long key, used by many objects: counted each time.
        let mut amplified = tape(&[
            &[tag::ARRAY],
            &1000u32.to_le_bytes(),
            &[tag::NEW_SHAPE],
            &1u32.to_le_bytes(),
            &[tag::NARROW],
            &10_000u32.to_le_bytes(),
            &[b'k'; 10_000],
            &[tag::NULL],
        ]);
        for _ in 1..1000 {
            amplified.extend_from_slice(&[tag::SHAPE, 0, 0, 0, 0, tag::NULL]);
        }
        assert_eq!(
            decode(&amplified, 1 << 20),
            Err(TapeError::TooLarge(1 << 20))
        );
        for len in 0..40 {
            let truncated = &amplified[..len];
            assert!(decode(truncated, 1 << 20).is_err());
        }
    }
}
