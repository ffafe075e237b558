//! Values as the renderer sees them, through the read-only views of the
//! project's QuickJS patch; the walk's path and reusable lists.

use super::qjs;
#[cfg(feature = "quickjs")]
use rquickjs::{Ctx, Value};

use super::numbers::NumberArrays;
use super::scan::Chars;
use super::{
    JS_CoderunObjectShape, JS_CoderunObjectSlot, JS_CoderunPlainArray, JS_CoderunPlainObject,
    JS_CoderunPristine, MAX_NESTING,
};

// ---- values -----------------------------------------------------------------

/// A value as the renderer sees it.
pub(super) enum Kind {
    Undefined,
    Null,
    Bool(bool),
    Int(i32),
    Float(f64),
    String,
    Object,
    /// A BigInt, a symbol or an engine-internal value: declined.
    Other,
}

pub(super) fn kind(value: qjs::JSValue) -> Kind {
    // SAFETY: reading a value's tag and payload.
    unsafe {
        match qjs::JS_VALUE_GET_NORM_TAG(value) {
            qjs::JS_TAG_UNDEFINED => Kind::Undefined,
            qjs::JS_TAG_NULL => Kind::Null,
            qjs::JS_TAG_BOOL => Kind::Bool(qjs::JS_VALUE_GET_BOOL(value)),
            qjs::JS_TAG_INT => Kind::Int(qjs::JS_VALUE_GET_INT(value)),
            qjs::JS_TAG_FLOAT64 => Kind::Float(qjs::JS_VALUE_GET_FLOAT64(value)),
            qjs::JS_TAG_STRING | qjs::JS_TAG_STRING_ROPE => Kind::String,
            qjs::JS_TAG_OBJECT => Kind::Object,
            _ => Kind::Other,
        }
    }
}

/// The elements of a plain array, borrowed.
pub(super) fn plain_array<'a>(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
) -> Option<&'a [qjs::JSValue]> {
    let (mut elements, mut len) = (std::ptr::null(), 0u32);
    // SAFETY: `value` is live; the view is read before the engine runs again.
    if unsafe { JS_CoderunPlainArray(ctx, value, &mut elements, &mut len) } == 0 {
        return None;
    }
    if len == 0 || elements.is_null() {
        return Some(&[]);
    }
    // SAFETY: `len` elements at `elements`.
    Some(unsafe { std::slice::from_raw_parts(elements, len as usize) })
}

/// A property key: its characters, or an array index QuickJS keeps as a
/// number.
#[derive(Clone, Copy)]
pub(super) enum Key<'a> {
    Chars(Chars<'a>),
    /// ASCII that inspect writes as it is (an identifier's letters, `_`
    /// and digits, not `__proto__`) and JSON quotes without escapes.
    Name(&'a [u8]),
    Index(u32),
}

impl<'a> Key<'a> {
    /// A key of these characters, a `Name` when it is one.
    pub(super) fn of(chars: Chars<'a>) -> Key<'a> {
        let name = match chars {
            Chars::Narrow(bytes) => bytes,
            Chars::Wide(_) => return Key::Chars(chars),
        };
        let identifier = !name.is_empty()
            && name != b"__proto__"
            && name.iter().enumerate().all(|(at, &c)| {
                c == b'_' || c.is_ascii_alphabetic() || (at > 0 && c.is_ascii_digit())
            });
        if identifier {
            Key::Name(name)
        } else {
            Key::Chars(chars)
        }
    }
}

/// A plain object's slot values (borrowed, valid while the engine does
/// not run) and the range of [`Shapes`]'s entries that lists its own data
/// properties in the order the standard gives own keys (array indices
/// first, ascending; then the rest as created); `None` when it is not a
/// plain object. The shape's analysis (which slots, which keys, in which
/// order) is done once per shape a walk meets: the objects of an array of
/// records share a few shapes.
#[inline(always)]
pub(super) fn plain_slots(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    shapes: &mut Shapes<'_>,
) -> Option<(*const qjs::JSValue, usize, usize)> {
    let mut values = std::ptr::null();
    // SAFETY: `value` is a live value; the shape and slots are read before
    // the engine runs again.
    let shape = unsafe { JS_CoderunObjectShape(value, &mut values) } as usize;
    if shape == 0 {
        return None;
    }
    let (from, to) = shapes.analysed(ctx, value, shape)?;
    Some((values, from, to))
}

/// How many shapes [`Shapes`] finds without hashing.
const RECENT: usize = 4;

/// What a shape's analysis found: the range of [`Shapes`]'s slots that
/// holds its own data properties, or `None` when it is not plain.
type Analysis = Option<(usize, usize)>;

/// The shapes a walk has analysed: each one's own data properties (slot,
/// key, key as an array index) in own-key order, or that it is not plain.
#[derive(Default)]
pub(super) struct Shapes<'a> {
    /// Shape address → its range of `slots`, or `None` when not plain,
    /// for the shapes that left `recent`.
    known: std::collections::HashMap<usize, Analysis, AddressHash>,
    /// The shapes last looked up, their answers, and whether `known`
    /// holds them: records alternate between a few shapes (an item's and
    /// its nested objects'), which this finds without hashing. A shape
    /// found here is left where it is; one looked up replaces the oldest
    /// (`next`), which goes to `known` if it is not there. Address 0 is
    /// no shape.
    recent: [(usize, Analysis, bool); RECENT],
    /// How many shapes were put in `recent`.
    next: usize,
    slots: Vec<(u32, Key<'a>, i64)>,
}

impl<'a> Shapes<'a> {
    fn analysed(
        &mut self,
        ctx: *mut qjs::JSContext,
        value: qjs::JSValue,
        shape: usize,
    ) -> Analysis {
        if let Some(&(_, answer, _)) = self.recent.iter().find(|&&(known, ..)| known == shape) {
            return answer;
        }
        let (answer, hashed) = match self.known.get(&shape) {
            Some(&answer) => (answer, true),
            None => (self.analyse(ctx, value), false),
        };
        // A shape is hashed only once it leaves `recent`: a walk that meets
        // a few shapes (a console line, a list of records) hashes none.
        let (oldest, oldest_answer, oldest_hashed) = std::mem::replace(
            &mut self.recent[self.next % RECENT],
            (shape, answer, hashed),
        );
        if oldest != 0 && !oldest_hashed {
            self.known.insert(oldest, oldest_answer);
        }
        self.next = self.next.wrapping_add(1);
        answer
    }

    /// Reads the shape of `value` slot by slot.
    fn analyse(&mut self, ctx: *mut qjs::JSContext, value: qjs::JSValue) -> Analysis {
        // SAFETY: `value` is a live value of `ctx`.
        let count = unsafe { JS_CoderunPlainObject(ctx, value) };
        if count < 0 {
            return None;
        }
        let from = self.slots.len();
        let mut indices = false;
        for at in 0..count {
            let (mut chars, mut len, mut wide, mut index) = (std::ptr::null(), 0u32, 0, -1i64);
            // SAFETY: `at` is below the count the object reported; keys are
            // the shape's atoms, alive while the value is.
            let found = unsafe {
                JS_CoderunObjectSlot(ctx, value, at, &mut chars, &mut len, &mut wide, &mut index)
            };
            if found.is_null() {
                continue;
            }
            let key = if chars.is_null() {
                Key::Index(index as u32)
            } else {
                // SAFETY: the key's characters, alive while the shape is.
                Key::of(unsafe { Chars::from_raw(chars, len, wide) })
            };
            indices |= index >= 0;
            self.slots.push((at as u32, key, index));
        }
        if indices {
            self.slots[from..]
                .sort_by_key(|&(_, _, index)| if index >= 0 { index } else { i64::MAX });
        }
        Some((from, self.slots.len()))
    }

    /// Entry `at` (of a range [`plain_slots`] gave): its slot and key.
    #[inline(always)]
    pub(super) fn entry(&self, at: usize) -> (usize, Key<'a>) {
        let (slot, key, _) = self.slots[at];
        (slot as usize, key)
    }
}

/// A hasher for addresses, and the host's call ids: one multiplication,
/// its high half folded in. Neither is a program's choice.
#[derive(Default, Clone, Copy)]
pub struct AddressHasher(u64);

impl std::hash::Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ u64::from(b));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        let x = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = x ^ (x >> 29);
    }
}

pub type AddressHash = std::hash::BuildHasherDefault<AddressHasher>;

pub(super) fn object_id(value: qjs::JSValue) -> usize {
    // SAFETY: an object's pointer, compared and never dereferenced.
    unsafe { qjs::JS_VALUE_GET_PTR(value) as usize }
}

#[cfg(feature = "quickjs")]
pub(super) fn pristine(ctx: &Ctx<'_>, custom: &Value<'_>) -> bool {
    pristine_raw(ctx.as_raw().as_ptr(), custom.as_raw())
}

/// [`pristine`] on QuickJS's own values.
pub(super) fn pristine_raw(ctx: *mut qjs::JSContext, custom: qjs::JSValue) -> bool {
    // SAFETY: `custom` is a live value of the live context `ctx`.
    unsafe { JS_CoderunPristine(ctx, custom) == 1 }
}

/// The objects a walk is inside (for cycles and its depth bound), and the
/// shapes it has analysed.
#[derive(Default)]
pub(super) struct Walk<'a> {
    pub(super) path: Vec<usize>,
    pub(super) shapes: Shapes<'a>,
    /// The arrays of numbers a JSON walk notes, when it notes them.
    pub(super) numbers: Option<NumberArrays>,
}

impl<'a> Walk<'a> {
    /// Enters object `id`: false for a cycle or past the depth bound.
    #[inline(always)]
    pub(super) fn enter(&mut self, id: usize) -> bool {
        if self.path.len() >= MAX_NESTING || self.path.contains(&id) {
            return false;
        }
        self.path.push(id);
        true
    }

    #[inline(always)]
    pub(super) fn leave(&mut self) {
        self.path.pop();
    }
}
