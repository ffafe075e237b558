//! QuickJS C functions with Rust entry points. rquickjs makes Rust closures
//! only; a C function is called by QuickJS directly, without a closure's
//! trampoline and its conversions of the arguments, which counts for what
//! programs call often: the bindings, `JSON.parse` and `JSON.stringify`.

use std::ffi::c_int;

use rquickjs::{Ctx, Object, qjs};

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

/// The attributes of a property a C function is defined as.
pub enum Attributes {
    /// Writable, enumerable and configurable, as an assignment makes it
    /// (a binding on its namespace).
    Assigned,
    /// Writable and configurable, as the built-ins' methods are.
    BuiltIn,
}

unsafe extern "C" {
    /// The project's QuickJS patch: a C function (not a constructor, with
    /// `Function.prototype`) named by an atom the caller holds.
    fn JS_CoderunNewCFunctionAtom(
        ctx: *mut qjs::JSContext,
        func: qjs::JSCFunction,
        name: qjs::JSAtom,
        length: c_int,
        cproto: qjs::JSCFunctionEnum,
        magic: c_int,
    ) -> qjs::JSValue;
}

/// Defines `name` on `target` as a new C function (`function name() {
/// [native code] }`, not a constructor) of `length`, calling `call`. One
/// atom, made from `name`'s bytes (a NUL among them too), names both the
/// function and the property, and the property is defined, without
/// `[[Set]]`'s search of the prototype chain: a registry's tools are
/// installed on every run, and looking each name up twice and assigning it
/// was a fifth of a binding's cost.
#[expect(
    unsafe_code,
    reason = "rquickjs makes Rust closures only; a C function is made through QuickJS's API"
)]
pub fn define<'js>(
    ctx: &Ctx<'js>,
    target: &Object<'js>,
    call: Call,
    name: &str,
    length: c_int,
    attributes: Attributes,
) -> rquickjs::Result<()> {
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
    let flags = match attributes {
        Attributes::Assigned => qjs::JS_PROP_C_W_E,
        Attributes::BuiltIn => qjs::JS_PROP_WRITABLE | qjs::JS_PROP_CONFIGURABLE,
    };
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: the live context and an object of it; `name`'s bytes are
    // read for the call. The atom is freed on every path; the function's
    // value is handed to `JS_DefinePropertyValue`, which takes it (an
    // exception value holds nothing).
    let defined = unsafe {
        let atom = qjs::JS_NewAtomLen(raw, name.as_ptr().cast(), name.len() as _);
        if atom == qjs::JS_ATOM_NULL {
            return Err(rquickjs::Error::Exception);
        }
        let function = JS_CoderunNewCFunctionAtom(raw, Some(entry), atom, length, kind, magic);
        let defined = if qjs::JS_IsException(function) {
            -1
        } else {
            qjs::JS_DefinePropertyValue(raw, target.as_raw(), atom, function, flags as c_int)
        };
        qjs::JS_FreeAtom(raw, atom);
        defined
    };
    if defined < 0 {
        Err(rquickjs::Error::Exception)
    } else {
        Ok(())
    }
}
