//! QuickJS C functions with Rust entry points. rquickjs makes Rust closures
//! only; a C function is called by QuickJS directly, without a closure's
//! trampoline and its conversions of the arguments, which counts for what
//! programs call often: the bindings, `JSON.parse` and `JSON.stringify`.

use std::ffi::{CStr, c_int};

use rquickjs::{Ctx, Value, qjs};

/// A C function's entry, QuickJS's `JSCFunction`: the context, `this`, and
/// the call's `argc` arguments at `argv`.
pub type Entry = unsafe extern "C" fn(
    *mut qjs::JSContext,
    qjs::JSValue,
    c_int,
    *mut qjs::JSValue,
) -> qjs::JSValue;

/// An entry handed the function's `magic` as well, QuickJS's
/// `JSCFunctionMagic`.
pub type MagicEntry = unsafe extern "C" fn(
    *mut qjs::JSContext,
    qjs::JSValue,
    c_int,
    *mut qjs::JSValue,
    c_int,
) -> qjs::JSValue;

/// What a new C function calls.
pub enum Call {
    /// An entry of its own.
    Plain(Entry),
    /// An entry shared by several functions, told apart by the magic
    /// (QuickJS keeps it in 16 bits, hence the type).
    Magic(MagicEntry, i16),
}

/// A new C function (`function name() { [native code] }`, not a
/// constructor) of `length`, calling `call`; its `name` is copied into an
/// atom.
#[expect(
    unsafe_code,
    reason = "rquickjs makes Rust closures only; a C function is made through QuickJS's API"
)]
pub fn new<'js>(
    ctx: &Ctx<'js>,
    call: Call,
    name: &CStr,
    length: c_int,
) -> rquickjs::Result<Value<'js>> {
    let (entry, kind, magic) = match call {
        Call::Plain(entry) => (entry, qjs::JSCFunctionEnum_JS_CFUNC_generic, 0),
        Call::Magic(entry, magic) => (
            // SAFETY: QuickJS stores the entry as its generic C function
            // type and calls it as the magic one, as
            // `JS_CFUNC_generic_magic` says (C's `JS_NewCFunctionMagic`
            // casts the same way).
            unsafe { std::mem::transmute::<MagicEntry, Entry>(entry) },
            qjs::JSCFunctionEnum_JS_CFUNC_generic_magic,
            c_int::from(magic),
        ),
    };
    // SAFETY: the live context; `name` is NUL-terminated and outlives the
    // call, which copies it into an atom.
    let raw = unsafe {
        qjs::JS_NewCFunction2(
            ctx.as_raw().as_ptr(),
            Some(entry),
            name.as_ptr(),
            length,
            kind,
            magic,
        )
    };
    // SAFETY: the value QuickJS returned, owned from here on (an exception
    // value holds nothing).
    let value = unsafe { Value::from_raw(ctx.clone(), raw) };
    if value.is_exception() {
        Err(rquickjs::Error::Exception)
    } else {
        Ok(value)
    }
}
