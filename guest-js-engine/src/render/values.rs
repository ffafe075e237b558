//! Values as the renderer sees them, through the read-only views of the
//! project's QuickJS patch; the walk's path and reusable lists.

use rquickjs::{Ctx, Value, qjs};

use super::scan::Chars;
use super::{
    JS_CoderunObjectSlot, JS_CoderunPlainArray, JS_CoderunPlainObject, JS_CoderunPristine,
    MAX_NESTING,
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
    Index(u32),
}

/// An own property: its key, its value (borrowed), and its key as an array
/// index (else -1).
pub(super) type Property<'a> = (Key<'a>, qjs::JSValue, i64);

/// A plain object's own properties into `properties`, in the order the
/// standard gives own keys (array indices first, ascending; then the rest
/// as created); false when it is not a plain object.
pub(super) fn plain_object<'a>(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    properties: &mut Vec<Property<'a>>,
) -> bool {
    properties.clear();
    // SAFETY: `value` is a live value of `ctx`.
    let slots = unsafe { JS_CoderunPlainObject(ctx, value) };
    if slots < 0 {
        return false;
    }
    let mut indices = false;
    for at in 0..slots {
        let (mut chars, mut len, mut wide, mut index) = (std::ptr::null(), 0u32, 0, -1i64);
        // SAFETY: `at` is below the count the object reported; keys and
        // values are read before the engine runs again.
        let found = unsafe {
            JS_CoderunObjectSlot(ctx, value, at, &mut chars, &mut len, &mut wide, &mut index)
        };
        if found.is_null() {
            continue;
        }
        let key = if chars.is_null() {
            Key::Index(index as u32)
        } else {
            // SAFETY: the key's characters, alive while the property is.
            Key::Chars(unsafe { Chars::from_raw(chars, len, wide) })
        };
        indices |= index >= 0;
        // SAFETY: the slot's value, borrowed.
        properties.push((key, unsafe { *found }, index));
    }
    if indices {
        properties.sort_by_key(|&(_, _, index)| if index >= 0 { index } else { i64::MAX });
    }
    true
}

pub(super) fn object_id(value: qjs::JSValue) -> usize {
    // SAFETY: an object's pointer, compared and never dereferenced.
    unsafe { qjs::JS_VALUE_GET_PTR(value) as usize }
}

pub(super) fn pristine(ctx: &Ctx<'_>, custom: &Value<'_>) -> bool {
    // SAFETY: `custom` is a live value of `ctx`.
    unsafe { JS_CoderunPristine(ctx.as_raw().as_ptr(), custom.as_raw()) == 1 }
}

/// The objects a walk is inside (for cycles and its depth bound), and
/// property lists kept for reuse, one per level, so that a walk allocates
/// per level reached, not per object.
#[derive(Default)]
pub(super) struct Walk<'a> {
    pub(super) path: Vec<usize>,
    pub(super) lists: Vec<Vec<Property<'a>>>,
}

impl<'a> Walk<'a> {
    /// Enters object `id`: false for a cycle or past the depth bound.
    pub(super) fn enter(&mut self, id: usize) -> bool {
        if self.path.len() >= MAX_NESTING || self.path.contains(&id) {
            return false;
        }
        self.path.push(id);
        if self.lists.len() < self.path.len() {
            self.lists.push(Vec::new());
        }
        true
    }

    pub(super) fn leave(&mut self) {
        self.path.pop();
    }

    /// This level's property list, to fill (see `plain_object`).
    pub(super) fn list(&mut self) -> Vec<Property<'a>> {
        std::mem::take(&mut self.lists[self.path.len() - 1])
    }

    pub(super) fn give_back(&mut self, list: Vec<Property<'a>>) {
        self.lists[self.path.len() - 1] = list;
    }
}
