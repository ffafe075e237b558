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

#![allow(non_snake_case, reason = "QuickJS's names for the views")]

use std::ffi::{c_int, c_void};

use super::inspect::Inspect;
use super::scan::Chars;
use super::tags as tag;

/// QuickJS's names for the arena's values.
#[allow(non_snake_case, non_camel_case_types, reason = "QuickJS's names")]
pub(super) mod qjs {
    use std::ffi::c_void;

    /// A value: its tag, and its payload (an integer, a double's bits, a
    /// boolean, or the address of its node in the arena).
    #[derive(Clone, Copy)]
    pub struct JSValue {
        pub(super) tag: i32,
        pub(super) bits: u64,
    }

    /// The renderer passes a context along; the arena needs none.
    pub enum JSContext {}

    pub const JS_TAG_INT: i32 = 0;
    pub const JS_TAG_BOOL: i32 = 1;
    pub const JS_TAG_NULL: i32 = 2;
    pub const JS_TAG_UNDEFINED: i32 = 3;
    pub const JS_TAG_FLOAT64: i32 = 7;
    pub const JS_TAG_OBJECT: i32 = -1;
    pub const JS_TAG_STRING: i32 = -7;
    /// Never a tape's: its strings are flat.
    pub const JS_TAG_STRING_ROPE: i32 = -6;

    /// # Safety
    /// Safe; `unsafe` as QuickJS's is.
    pub unsafe fn JS_VALUE_GET_NORM_TAG(value: JSValue) -> i32 {
        value.tag
    }

    /// # Safety
    /// Safe; `unsafe` as QuickJS's is.
    pub unsafe fn JS_VALUE_GET_INT(value: JSValue) -> i32 {
        value.bits as u32 as i32
    }

    /// # Safety
    /// Safe; `unsafe` as QuickJS's is.
    pub unsafe fn JS_VALUE_GET_FLOAT64(value: JSValue) -> f64 {
        f64::from_bits(value.bits)
    }

    /// # Safety
    /// Safe; `unsafe` as QuickJS's is.
    pub unsafe fn JS_VALUE_GET_BOOL(value: JSValue) -> bool {
        value.bits != 0
    }

    /// # Safety
    /// Safe; `unsafe` as QuickJS's is.
    pub unsafe fn JS_VALUE_GET_PTR(value: JSValue) -> *mut c_void {
        value.bits as usize as *mut c_void
    }

    /// Nothing to free: the arena owns every value.
    ///
    /// # Safety
    /// Safe; `unsafe` as QuickJS's is.
    pub unsafe fn JS_FreeValue(_ctx: *mut JSContext, _value: JSValue) {}
}

use qjs::{JSContext, JSValue};

/// A string's characters, in the arena.
struct StringNode {
    chars: Chars<'static>,
}

/// An array's elements.
struct ArrayNode {
    elements: &'static [JSValue],
}

/// An object: its shape and its values, in the shape's order.
struct ObjectNode {
    shape: &'static ShapeNode,
    values: &'static [JSValue],
}

impl ObjectNode {
    fn keys(&self) -> &[KeyNode] {
        self.shape.keys
    }
}

/// A shape's keys: characters, or an array index.
struct ShapeNode {
    keys: &'static [KeyNode],
}

enum KeyNode {
    Chars(Chars<'static>),
    Index(u32),
}

fn node<T>(value: JSValue, tag: i32) -> Option<&'static T> {
    // SAFETY: a value of this tag made by the reader points at a live
    // node of that type (the arena outlives every rendering of it).
    (value.tag == tag && value.bits != 0).then(|| unsafe { &*(value.bits as usize as *const T) })
}

/// Objects are arrays or records: the tag alone does not say which.
const ARRAY: u64 = 1;

fn array(value: JSValue) -> Option<&'static ArrayNode> {
    if value.tag != qjs::JS_TAG_OBJECT || value.bits & ARRAY == 0 {
        return None;
    }
    // SAFETY: as `node`: an array's address, marked in its low bit
    // (nodes are aligned).
    Some(unsafe { &*((value.bits & !ARRAY) as usize as *const ArrayNode) })
}

fn object(value: JSValue) -> Option<&'static ObjectNode> {
    if value.bits & ARRAY != 0 {
        return None;
    }
    node(value, qjs::JS_TAG_OBJECT)
}

// ---- the views the renderer reads ------------------------------------------

pub(super) unsafe fn JS_CoderunStringChars(value: JSValue, len: *mut u32) -> *const c_void {
    match node::<StringNode>(value, qjs::JS_TAG_STRING) {
        Some(string) => {
            let (chars, units, wide) = match string.chars {
                Chars::Narrow(bytes) => (bytes.as_ptr().cast::<c_void>(), bytes.len(), 0),
                Chars::Wide(units) => (units.as_ptr().cast::<c_void>(), units.len(), 1u32),
            };
            // SAFETY: the caller's out-parameter.
            unsafe { len.write(units as u32 | wide << 31) };
            chars
        }
        None => std::ptr::null(),
    }
}

/// Every string of the arena is flat: [`JS_CoderunStringChars`] reads it.
pub(super) unsafe fn JS_CoderunString(
    _ctx: *mut JSContext,
    _value: JSValue,
    _string: *mut JSValue,
    _chars: *mut *const c_void,
    _len: *mut u32,
    _wide: *mut c_int,
) -> c_int {
    -1
}

pub(super) unsafe fn JS_CoderunPlainArray(
    _ctx: *mut JSContext,
    value: JSValue,
    elements: *mut *const JSValue,
    len: *mut u32,
) -> c_int {
    match array(value) {
        Some(array) => {
            // SAFETY: the caller's out-parameters.
            unsafe {
                elements.write(array.elements.as_ptr());
                len.write(array.elements.len() as u32);
            }
            1
        }
        None => 0,
    }
}

pub(super) unsafe fn JS_CoderunObjectShape(
    value: JSValue,
    values: *mut *const JSValue,
) -> *const c_void {
    match object(value) {
        Some(object) => {
            // SAFETY: the caller's out-parameter.
            unsafe { values.write(object.values.as_ptr()) };
            (object.shape as *const ShapeNode).cast()
        }
        None => std::ptr::null(),
    }
}

pub(super) unsafe fn JS_CoderunPlainObject(_ctx: *mut JSContext, value: JSValue) -> c_int {
    object(value).map_or(-1, |object| object.keys().len() as c_int)
}

pub(super) unsafe fn JS_CoderunObjectSlot(
    _ctx: *mut JSContext,
    value: JSValue,
    slot: c_int,
    chars: *mut *const c_void,
    len: *mut u32,
    wide: *mut c_int,
    index: *mut i64,
) -> *const JSValue {
    let Some(object) = object(value) else {
        return std::ptr::null();
    };
    // SAFETY: a shape of the arena; `slot` below its count (the caller's
    // promise, checked); the caller's out-parameters.
    unsafe {
        let Some(key) = object.keys().get(slot as usize) else {
            return std::ptr::null();
        };
        match key {
            KeyNode::Chars(Chars::Narrow(bytes)) => {
                chars.write(bytes.as_ptr().cast());
                len.write(bytes.len() as u32);
                wide.write(0);
                index.write(-1);
            }
            KeyNode::Chars(Chars::Wide(units)) => {
                chars.write(units.as_ptr().cast());
                len.write(units.len() as u32);
                wide.write(1);
                index.write(-1);
            }
            KeyNode::Index(at) => {
                chars.write(std::ptr::null());
                index.write(i64::from(*at));
            }
        }
        object.values.as_ptr().add(slot as usize)
    }
}

/// The arena's objects have no prototypes to change.
pub(super) unsafe fn JS_CoderunPristine(_ctx: *mut JSContext, _custom: JSValue) -> c_int {
    1
}

// ---- reading a tape ---------------------------------------------------------

/// The deepest nesting a tape may have: the renderer's bound, which the
/// guest's writer keeps to.
pub const MAX_TAPE_DEPTH: usize = super::MAX_NESTING;

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
/// outlives [`render_tape`].
struct Reader<'a> {
    tape: &'a [u8],
    at: usize,
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

    fn value(&mut self, depth: usize) -> Result<JSValue, TapeError> {
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

/// How deeply the arrays and objects of `tape` nest, found without
/// recursing (a list of the counts left at each level), so that a caller
/// can give [`render_tape`], which recurses once a level to read and to
/// render, a stack of its own for a deep tape. It stops past
/// [`MAX_TAPE_DEPTH`], and at the first malformed byte, with the depth
/// reached: [`render_tape`] reports what was wrong.
pub fn tape_depth(tape: &[u8]) -> usize {
    let (mut at, mut deepest) = (0usize, 0usize);
    // The values left to read at each open level.
    let mut left: Vec<u64> = Vec::new();
    // The key count of each shape with keys, by number.
    let mut shapes: Vec<u64> = Vec::new();
    let u32_at = |at: usize| {
        tape.get(at..at + 4)
            .map(|bytes| u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])))
    };
    loop {
        // Close the levels whose values are all read.
        while left.last() == Some(&0) {
            left.pop();
        }
        if let Some(last) = left.last_mut() {
            *last -= 1;
        } else if at > 0 {
            return deepest;
        }
        let Some(&tag) = tape.get(at) else {
            return deepest;
        };
        at += 1;
        let opened = match tag {
            tag::UNDEFINED | tag::NULL | tag::FALSE | tag::TRUE => None,
            tag::INT => {
                at += 4;
                None
            }
            tag::DOUBLE => {
                at += 8;
                None
            }
            tag::NARROW | tag::WIDE => {
                let Some(len) = u32_at(at) else {
                    return deepest;
                };
                at += 4 + (len as usize) * usize::from(tag - tag::NARROW + 1);
                None
            }
            tag::ARRAY => {
                let Some(count) = u32_at(at) else {
                    return deepest;
                };
                at += 4;
                Some(count)
            }
            tag::NEW_SHAPE => {
                let Some(count) = u32_at(at) else {
                    return deepest;
                };
                at += 4;
                for _ in 0..count {
                    match tape.get(at) {
                        Some(&(tag::NARROW | tag::WIDE)) => {
                            let Some(len) = u32_at(at + 1) else {
                                return deepest;
                            };
                            at += 5 + (len as usize) * usize::from(tape[at] - tag::NARROW + 1);
                        }
                        Some(&tag::INT) => at += 5,
                        _ => return deepest,
                    }
                }
                if count > 0 {
                    shapes.push(count);
                }
                Some(count)
            }
            tag::SHAPE => {
                let Some(number) = u32_at(at) else {
                    return deepest;
                };
                at += 4;
                let Some(&count) = shapes.get(number as usize) else {
                    return deepest;
                };
                Some(count)
            }
            _ => return deepest,
        };
        if let Some(count) = opened {
            left.push(count);
            deepest = deepest.max(left.len());
            if deepest > MAX_TAPE_DEPTH {
                return deepest;
            }
        }
    }
}

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
    let mut reader = Reader {
        tape,
        at: 0,
        bump: bumpalo::Bump::new(),
        numbered: Vec::new(),
        pending: Vec::new(),
        bytes: 0,
        max_bytes,
    };
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
    fn a_tapes_depth_is_found_without_reading_it() {
        let nested = |depth: usize| {
            let mut tape = Vec::new();
            for _ in 0..depth {
                tape.extend_from_slice(&[
                    tag::NEW_SHAPE,
                    1,
                    0,
                    0,
                    0,
                    tag::NARROW,
                    1,
                    0,
                    0,
                    0,
                    b'k',
                ]);
            }
            tape.push(tag::NULL);
            tape
        };
        assert_eq!(tape_depth(&[tag::NULL]), 0);
        assert_eq!(tape_depth(&nested(1)), 1);
        assert_eq!(tape_depth(&nested(57)), 57);
        // Siblings do not add up; a shape met again opens a level too.
        let siblings = [
            &[tag::ARRAY][..],
            &u32s(3),
            &[tag::NEW_SHAPE],
            &u32s(1),
            &[tag::INT],
            &u32s(0),
            &[tag::ARRAY],
            &u32s(0),
            &[tag::SHAPE],
            &u32s(0),
            &[tag::ARRAY],
            &u32s(1),
            &[tag::NULL, tag::NULL],
        ]
        .concat();
        assert_eq!(tape_depth(&siblings), 3);
        assert!(json(&siblings).is_ok());
        // Past the bound it stops; malformed, it stops where it is.
        assert_eq!(tape_depth(&nested(1000)), MAX_TAPE_DEPTH + 1);
        assert_eq!(tape_depth(&[tag::ARRAY, 1, 0]), 0);
        assert_eq!(tape_depth(&[tag::SHAPE, 9, 0, 0, 0]), 0);
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
