//! Reading a tape into the arena, as untrusted input.

use super::views::qjs::{self, JSValue};
use super::views::{ARRAY, ArrayNode, KeyNode, ObjectNode, ShapeNode, StringNode};
use crate::scan::Chars;
use crate::tags as tag;

/// The deepest nesting a tape may have: the renderer's bound, which the
/// guest's writer keeps to.
pub const MAX_TAPE_DEPTH: usize = crate::MAX_NESTING;

/// Why a tape was not read or rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TapeError {
    /// It ends inside a value, at this byte.
    Truncated(usize),
    /// An unknown tag, and where.
    UnknownTag { tag: u8, at: usize },
    /// A shape it has not described.
    UnknownShape(u32),
    /// It nests deeper than [`MAX_TAPE_DEPTH`].
    TooDeep,
    /// Its strings and keys add up to more than this many bytes.
    TooLarge(usize),
    /// Bytes after its value.
    Trailing(usize),
    /// A value the renderer does not take (which the guest would not have
    /// written).
    Declined,
}

impl std::fmt::Display for TapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TapeError::Truncated(at) => write!(f, "the tape ends inside a value at byte {at}"),
            TapeError::UnknownTag { tag, at } => {
                write!(f, "the tape has an unknown tag {tag} at byte {at}")
            }
            TapeError::UnknownShape(shape) => {
                write!(
                    f,
                    "the tape refers to shape {shape}, which it has not described"
                )
            }
            TapeError::TooDeep => {
                write!(f, "the tape nests deeper than {MAX_TAPE_DEPTH} levels")
            }
            TapeError::TooLarge(max) => {
                write!(
                    f,
                    "the value's strings and keys alone are more than {max} bytes"
                )
            }
            TapeError::Trailing(left) => write!(f, "the tape has {left} bytes after its value"),
            TapeError::Declined => write!(f, "the tape holds a value that is not plain data"),
        }
    }
}

impl std::error::Error for TapeError {}

/// The arena: the nodes, the lists of elements, values and keys, and the
/// UTF-16 strings, bump-allocated in chunks, where their addresses stay put
/// until the reader is dropped; an 8-bit string is the tape's own bytes.
/// The `'static` the nodes name is the reader's life: no reference to them
/// outlives [`render_tape`](super::render_tape).
pub(super) struct Reader<'a> {
    tape: &'a [u8],
    pub(super) at: usize,
    bump: bumpalo::Bump,
    /// The shapes with keys described so far, by number.
    numbered: Vec<&'static ShapeNode>,
    /// The values read and not yet placed in their list (a stack: a
    /// list's values are the last ones pushed when it ends).
    pending: Vec<JSValue>,
    /// The bytes of the strings and keys read so far, each key counted
    /// every time an object uses it.
    bytes: usize,
    max_bytes: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(tape: &'a [u8], max_bytes: usize) -> Reader<'a> {
        Reader {
            tape,
            at: 0,
            bump: bumpalo::Bump::new(),
            numbered: Vec::new(),
            pending: Vec::new(),
            bytes: 0,
            max_bytes,
        }
    }

    /// `value` in the arena, named `'static` (see [`Reader`]).
    fn place<T>(&self, value: T) -> &'static T {
        let placed: &T = self.bump.alloc(value);
        // SAFETY: the arena's allocation lives as long as the reader.
        unsafe { &*(placed as *const T) }
    }

    /// The values pushed since `from`, moved into a list in the arena.
    fn list(&mut self, from: usize) -> &'static [JSValue] {
        let placed: &[JSValue] = self.bump.alloc_slice_copy(&self.pending[from..]);
        self.pending.truncate(from);
        // SAFETY: as in `place`.
        unsafe { &*(placed as *const [JSValue]) }
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], TapeError> {
        let end = self
            .at
            .checked_add(len)
            .filter(|&end| end <= self.tape.len())
            .ok_or(TapeError::Truncated(self.at))?;
        let tape = self.tape;
        self.at = end;
        Ok(&tape[end - len..end])
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

    pub(super) fn value(&mut self, depth: usize) -> Result<JSValue, TapeError> {
        let at = self.at;
        let tag = self.u8()?;
        let scalar = |tag, bits| JSValue { tag, bits };
        Ok(match tag {
            tag::UNDEFINED => scalar(qjs::JS_TAG_UNDEFINED, 0),
            tag::NULL => scalar(qjs::JS_TAG_NULL, 0),
            tag::FALSE => scalar(qjs::JS_TAG_BOOL, 0),
            tag::TRUE => scalar(qjs::JS_TAG_BOOL, 1),
            tag::INT => scalar(qjs::JS_TAG_INT, u64::from(self.u32()?)),
            tag::DOUBLE => {
                let bytes = self.take(8)?;
                let bits =
                    u64::from_le_bytes(bytes.try_into().map_err(|_| TapeError::Truncated(at))?);
                scalar(qjs::JS_TAG_FLOAT64, bits)
            }
            tag::NARROW | tag::WIDE => {
                let chars = self.chars(tag)?;
                self.spend(chars.len())?;
                let node = self.place(StringNode { chars });
                scalar(
                    qjs::JS_TAG_STRING,
                    node as *const StringNode as usize as u64,
                )
            }
            tag::ARRAY | tag::NEW_SHAPE | tag::SHAPE => {
                if depth >= MAX_TAPE_DEPTH {
                    return Err(TapeError::TooDeep);
                }
                self.spend(2)?;
                if tag == tag::ARRAY {
                    let count = self.count()?;
                    let from = self.pending.len();
                    for _ in 0..count {
                        let element = self.value(depth + 1)?;
                        self.pending.push(element);
                    }
                    let elements = self.list(from);
                    let node = self.place(ArrayNode { elements });
                    scalar(
                        qjs::JS_TAG_OBJECT,
                        node as *const ArrayNode as usize as u64 | ARRAY,
                    )
                } else {
                    self.object(tag, depth)?
                }
            }
            tag => return Err(TapeError::UnknownTag { tag, at }),
        })
    }

    /// A string's characters (tag `tag`, its length and characters next):
    /// the tape's own bytes when 8-bit, copied into the arena when UTF-16
    /// (the tape does not align them).
    fn chars(&mut self, tag: u8) -> Result<Chars<'static>, TapeError> {
        let len = self.u32()? as usize;
        if tag == tag::NARROW {
            let bytes = self.take(len)?;
            // SAFETY: the tape outlives the reader (see `Reader`).
            return Ok(Chars::Narrow(unsafe { &*(bytes as *const [u8]) }));
        }
        let bytes = self.take(len.checked_mul(2).ok_or(TapeError::Truncated(self.at))?)?;
        let units = bytes
            .chunks_exact(2)
            .map(|unit| u16::from_le_bytes([unit[0], unit[1]]));
        let placed: &[u16] = self.bump.alloc_slice_fill_iter(units);
        // SAFETY: as in `place`.
        Ok(Chars::Wide(unsafe { &*(placed as *const [u16]) }))
    }

    fn object(&mut self, tag: u8, depth: usize) -> Result<JSValue, TapeError> {
        let shape = if tag == tag::NEW_SHAPE {
            let count = self.count()?;
            let mut keys = Vec::with_capacity(count);
            for _ in 0..count {
                let at = self.at;
                keys.push(match self.u8()? {
                    tag @ (tag::NARROW | tag::WIDE) => KeyNode::Chars(self.chars(tag)?),
                    tag::INT => KeyNode::Index(self.u32()?),
                    tag => return Err(TapeError::UnknownTag { tag, at }),
                });
            }
            let keys: &[KeyNode] = self.bump.alloc_slice_fill_iter(keys);
            // SAFETY: as in `place`.
            let keys = unsafe { &*(keys as *const [KeyNode]) };
            let shape = self.place(ShapeNode { keys });
            // Only a shape with keys is numbered (the guest writes one
            // with none as new each time).
            if !keys.is_empty() {
                self.numbered.push(shape);
            }
            shape
        } else {
            let number = self.u32()?;
            *self
                .numbered
                .get(number as usize)
                .ok_or(TapeError::UnknownShape(number))?
        };
        let from = self.pending.len();
        for key in shape.keys {
            let key_bytes = match key {
                KeyNode::Chars(chars) => chars.len(),
                KeyNode::Index(_) => 10,
            };
            self.spend(key_bytes + 3)?;
            let value = self.value(depth + 1)?;
            self.pending.push(value);
        }
        let values = self.list(from);
        let node = self.place(ObjectNode { shape, values });
        Ok(JSValue {
            tag: qjs::JS_TAG_OBJECT,
            bits: node as *const ObjectNode as usize as u64,
        })
    }
}
