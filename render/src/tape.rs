//! Plain data written as a tape: the values themselves, in a compact
//! binary form the host reads (`arena.rs`, in the host's build), instead of
//! their JSON text. Nothing is formatted here: a number is its eight
//! bytes, a string its characters as QuickJS holds them (8-bit or
//! UTF-16), and an object's keys are written once for its shape, then
//! referred to by number. The host applies JSON's rules (an `undefined`
//! property left out, `NaN` as `null`...), so the tape keeps every value
//! as it is.
//!
//! It takes what [`json_raw`](super::json_raw) takes natively, through the
//! same views: strings, numbers, booleans, `null`, `undefined`, dense
//! arrays and ordinary objects, with the prototypes pristine; anything
//! else (a cycle, a class instance, a symbol...) is declined and left to
//! the prelude, as there.
//!
//! The format is described in [`tags`](super::tags).

use super::qjs;

use super::JS_CoderunObjectShape;
use super::scan::{Chars, Held, narrow};
use super::tags as tag;
use super::values::*;

/// `value` as a tape, when it is plain data and its tape is at most
/// `limit` bytes; `None` otherwise, for the prelude to decide (as
/// [`json_raw`](super::json_raw) would), or the guest to render.
pub fn tape(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    custom: qjs::JSValue,
    limit: usize,
) -> Option<Vec<u8>> {
    if matches!(kind(value), Kind::Object) && !pristine_raw(ctx, custom) {
        return None;
    }
    let mut writer = Writer {
        ctx,
        buf: Vec::with_capacity(64),
        walk: Walk::default(),
        numbers: Vec::new(),
        count: 0,
        limit,
        recent: [(0, 0, 0, 0); 2],
    };
    (writer.value(value) && !writer.over()).then_some(writer.buf)
}

struct Writer<'a> {
    ctx: *mut qjs::JSContext,
    buf: Vec<u8>,
    walk: Walk<'a>,
    /// Each shape's tape number plus one, at the start of its range in
    /// `walk.shapes` (distinct for shapes with keys); 0 where none.
    numbers: Vec<u32>,
    /// How many shapes the tape has numbered.
    count: u32,
    /// The most bytes the tape may take.
    limit: usize,
    /// The last two shapes met with keys: address, range in `walk.shapes`,
    /// tape number (records alternate between an item's and its nested
    /// objects'). Address 0 is none.
    recent: [(usize, usize, usize, u32); 2],
}

impl Writer<'_> {
    /// A tag and its four- or eight-byte payload (the payload's bytes past
    /// `len` are written and left out of the tape's length).
    #[inline(always)]
    fn head(&mut self, tag: u8, payload: u64, len: usize) {
        self.buf.reserve(9);
        // SAFETY: nine bytes reserved after the tape; `len` is at most 9.
        unsafe {
            let at = self.buf.len();
            let to = self.buf.as_mut_ptr().add(at);
            to.write(tag);
            (to.add(1) as *mut u64).write_unaligned(payload.to_le());
            self.buf.set_len(at + len);
        }
    }

    #[inline(always)]
    fn value(&mut self, value: qjs::JSValue) -> bool {
        match kind(value) {
            Kind::Undefined => self.head(tag::UNDEFINED, 0, 1),
            Kind::Null => self.head(tag::NULL, 0, 1),
            Kind::Bool(b) => self.head(if b { tag::TRUE } else { tag::FALSE }, 0, 1),
            Kind::Int(n) => self.head(tag::INT, u64::from(n as u32), 5),
            Kind::Float(n) => self.head(tag::DOUBLE, n.to_bits(), 9),
            Kind::String => return self.string(value),
            Kind::Object => return self.object(value),
            Kind::Other => return false,
        }
        true
    }

    #[inline(never)]
    fn string(&mut self, value: qjs::JSValue) -> bool {
        if let Some(bytes) = narrow(value) {
            return self.chars(Chars::Narrow(bytes));
        }
        match Held::of(self.ctx, value) {
            Some(held) => self.chars(held.chars()),
            None => false,
        }
    }

    /// A string's characters, after its tag and length; false (nothing
    /// written) when they would take the tape past its limit.
    fn chars(&mut self, chars: Chars<'_>) -> bool {
        let (tag, len, bytes) = match chars {
            Chars::Narrow(bytes) => (tag::NARROW, bytes.len(), bytes),
            // SAFETY: the units' bytes, which the host reads as
            // little-endian (wasm's order).
            Chars::Wide(units) => (tag::WIDE, units.len(), unsafe {
                std::slice::from_raw_parts(units.as_ptr().cast::<u8>(), units.len() * 2)
            }),
        };
        if bytes.len() > self.limit.saturating_sub(self.buf.len()) {
            return false;
        }
        // One reservation for the tag, the length and the characters.
        self.buf.reserve(5 + bytes.len());
        // SAFETY: that many bytes reserved after the tape.
        unsafe {
            let at = self.buf.len();
            let to = self.buf.as_mut_ptr().add(at);
            to.write(tag);
            (to.add(1) as *mut u32).write_unaligned((len as u32).to_le());
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), to.add(5), bytes.len());
            self.buf.set_len(at + 5 + bytes.len());
        }
        true
    }

    /// Whether the tape has grown past its limit (checked at each string
    /// and object, what makes a tape long).
    #[inline(always)]
    fn over(&self) -> bool {
        self.buf.len() > self.limit
    }

    fn object(&mut self, value: qjs::JSValue) -> bool {
        if self.over() || !self.walk.enter(object_id(value)) {
            return false;
        }
        let done = if let Some((values, from, to)) = self.recent_shape(value) {
            (from..to).all(|at| {
                let (slot, _) = self.walk.shapes.entry(at);
                // SAFETY: as below.
                self.value(unsafe { *values.add(slot) })
            })
        } else {
            self.other_object(value)
        };
        self.walk.leave();
        done
    }

    /// An object of one of the last two shapes met with keys: its shape's
    /// number written, and its slots and range; `None` for any other.
    #[inline(always)]
    fn recent_shape(&mut self, value: qjs::JSValue) -> Option<(*const qjs::JSValue, usize, usize)> {
        let mut values = std::ptr::null();
        // SAFETY: `value` is a live object; its slots are read before the
        // engine runs again.
        let shape = unsafe { JS_CoderunObjectShape(value, &mut values) } as usize;
        let &(_, from, to, number) = self
            .recent
            .iter()
            .find(|&&(known, ..)| known == shape && shape != 0)?;
        self.head(tag::SHAPE, u64::from(number), 5);
        Some((values, from, to))
    }

    /// [`object`](Self::object) for an array, an object of a shape not
    /// among the last two, or what is neither (false).
    fn other_object(&mut self, value: qjs::JSValue) -> bool {
        let slots = plain_slots(self.ctx, value, &mut self.walk.shapes);
        if slots.is_none()
            && let Some(elements) = plain_array(self.ctx, value)
        {
            self.head(tag::ARRAY, elements.len() as u64, 5);
            elements.iter().all(|&element| self.value(element))
        } else if let Some((values, from, to)) = slots {
            self.shape(value, from, to)
                && (from..to).all(|at| {
                    let (slot, _) = self.walk.shapes.entry(at);
                    // SAFETY: the shape says slot `slot` is a data property of
                    // this object, whose slots are one value each.
                    self.value(unsafe { *values.add(slot) })
                })
        } else {
            false
        }
    }

    /// An object's shape: its number when met before, else its keys (false
    /// when they would take the tape past its limit). A shape with no keys
    /// is written as new each time (five bytes).
    fn shape(&mut self, value: qjs::JSValue, from: usize, to: usize) -> bool {
        if from < to {
            let mut values = std::ptr::null();
            // SAFETY: as in `recent_shape`.
            let shape = unsafe { JS_CoderunObjectShape(value, &mut values) } as usize;
            let known = self.numbers.get(from).copied().unwrap_or(0);
            let number = if known > 0 {
                known - 1
            } else {
                if self.numbers.len() <= from {
                    self.numbers.resize(from + 1, 0);
                }
                self.count += 1;
                self.numbers[from] = self.count;
                self.count - 1
            };
            self.recent.rotate_right(1);
            self.recent[0] = (shape, from, to, number);
            if known > 0 {
                self.head(tag::SHAPE, u64::from(number), 5);
                return true;
            }
        }
        self.head(tag::NEW_SHAPE, (to - from) as u64, 5);
        for at in from..to {
            let written = match self.walk.shapes.entry(at).1 {
                Key::Name(name) => self.chars(Chars::Narrow(name)),
                Key::Chars(chars) => self.chars(chars),
                Key::Index(index) => {
                    self.head(tag::INT, u64::from(index), 5);
                    true
                }
            };
            if !written {
                return false;
            }
        }
        true
    }
}
