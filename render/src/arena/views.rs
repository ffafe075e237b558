//! The arena's values and nodes, and the views of them the renderer
//! reads, under the names the guest's build takes from QuickJS.

#![allow(non_snake_case, reason = "QuickJS's names for the views")]

use std::ffi::{c_int, c_void};

use crate::scan::Chars;

/// QuickJS's names for the arena's values.
#[allow(non_snake_case, non_camel_case_types, reason = "QuickJS's names")]
pub mod qjs {
    use std::ffi::c_void;

    /// A value: its tag, and its payload (an integer, a double's bits, a
    /// boolean, or the address of its node in the arena).
    #[derive(Clone, Copy)]
    pub struct JSValue {
        pub(in crate::arena) tag: i32,
        pub(in crate::arena) bits: u64,
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
pub(super) struct StringNode {
    pub(super) chars: Chars<'static>,
}

/// An array's elements.
pub(super) struct ArrayNode {
    pub(super) elements: &'static [JSValue],
}

/// An object: its shape and its values, in the shape's order.
pub(super) struct ObjectNode {
    pub(super) shape: &'static ShapeNode,
    pub(super) values: &'static [JSValue],
}

impl ObjectNode {
    fn keys(&self) -> &[KeyNode] {
        self.shape.keys
    }
}

/// A shape's keys: characters, or an array index.
pub(super) struct ShapeNode {
    pub(super) keys: &'static [KeyNode],
}

pub(super) enum KeyNode {
    Chars(Chars<'static>),
    Index(u32),
}

pub(super) fn node<T>(value: JSValue, tag: i32) -> Option<&'static T> {
    // SAFETY: a value of this tag made by the reader points at a live
    // node of that type (the arena outlives every rendering of it).
    (value.tag == tag && value.bits != 0).then(|| unsafe { &*(value.bits as usize as *const T) })
}

/// Objects are arrays or records: the tag alone does not say which.
pub(super) const ARRAY: u64 = 1;

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

pub(in super::super) unsafe fn JS_CoderunStringChars(
    value: JSValue,
    len: *mut u32,
) -> *const c_void {
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
pub(in super::super) unsafe fn JS_CoderunString(
    _ctx: *mut JSContext,
    _value: JSValue,
    _string: *mut JSValue,
    _chars: *mut *const c_void,
    _len: *mut u32,
    _wide: *mut c_int,
) -> c_int {
    -1
}

pub(in super::super) unsafe fn JS_CoderunPlainArray(
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

pub(in super::super) unsafe fn JS_CoderunObjectShape(
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

pub(in super::super) unsafe fn JS_CoderunPlainObject(
    _ctx: *mut JSContext,
    value: JSValue,
) -> c_int {
    object(value).map_or(-1, |object| object.keys().len() as c_int)
}

pub(in super::super) unsafe fn JS_CoderunObjectSlot(
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
pub(in super::super) unsafe fn JS_CoderunPristine(_ctx: *mut JSContext, _custom: JSValue) -> c_int {
    1
}
