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
    /// The project's QuickJS patch: `atom` on `obj` as a property whose
    /// C function is made when first read (see [`define_lazy`]); 0 when
    /// `obj` has it already, -1 on an exception.
    fn JS_CoderunDefineLazyCFunction(
        ctx: *mut qjs::JSContext,
        obj: qjs::JSValue,
        atom: qjs::JSAtom,
        entry: *mut LazyEntry,
        func: MagicEntry,
        length: c_int,
        magic: c_int,
        flags: c_int,
    ) -> c_int;
}

/// Where a property made by [`define_lazy`] keeps what its function is
/// made from (QuickJS's `JSCFunctionListEntry`).
pub type LazyEntry = qjs::JSCFunctionListEntry;

/// Defines `name` on `target` as a new C function (`function name() {
/// [native code] }`, not a constructor) of `length`, calling `call`. One
/// atom, made from `name`'s bytes (a NUL among them too), names both the
/// function and the property, and the property is defined, without
/// `[[Set]]`'s search of the prototype chain: looking each name up twice
/// and assigning it was a fifth of a binding's cost.
pub fn define<'js>(
    ctx: &Ctx<'js>,
    target: &Object<'js>,
    call: Call,
    name: &str,
    length: c_int,
    attributes: Attributes,
) -> rquickjs::Result<()> {
    with_atom(ctx, name, |raw, atom| {
        define_now(raw, target, atom, call, length, flags(attributes))
    })
}

/// [`define`] for a `Call::Magic(call, magic)` and `Attributes::Assigned`
/// (a binding on its namespace), whose function is made when the property
/// is first read, written, defined or described, not now: QuickJS's own
/// lazy properties (an "autoinit" property, as its built-in methods are).
/// A registry's tools are installed on every run and a program calls a
/// few: making each function was a fifth of a binding's cost. The
/// property is in its place among `target`'s keys from now on, so
/// `Object.keys` and `in` see it; what the program reads is the same
/// function [`define`] makes. When `target` has `name` already, it is
/// defined now, as [`define`] would.
///
/// # Safety
/// `entry` stays valid, and nothing else writes it, while `target` may
/// still make the function: for the rest of the run.
#[expect(
    unsafe_code,
    reason = "the entry is QuickJS's to read until the function is made"
)]
pub unsafe fn define_lazy<'js>(
    ctx: &Ctx<'js>,
    target: &Object<'js>,
    entry: *mut LazyEntry,
    call: MagicEntry,
    magic: i16,
    name: &str,
    length: c_int,
) -> rquickjs::Result<()> {
    let flags = flags(Attributes::Assigned);
    with_atom(ctx, name, |raw, atom| {
        // SAFETY: the live context, an object of it, and an atom the
        // caller holds; `entry` outlives the property (the caller's
        // promise), and QuickJS fills it in.
        let defined = unsafe {
            JS_CoderunDefineLazyCFunction(
                raw,
                target.as_raw(),
                atom,
                entry,
                call,
                length,
                c_int::from(magic),
                flags,
            )
        };
        match defined {
            0 => define_now(raw, target, atom, Call::Magic(call, magic), length, flags),
            defined => defined,
        }
    })
}

/// The property flags of `attributes`.
fn flags(attributes: Attributes) -> c_int {
    (match attributes {
        Attributes::Assigned => qjs::JS_PROP_C_W_E,
        Attributes::BuiltIn => qjs::JS_PROP_WRITABLE | qjs::JS_PROP_CONFIGURABLE,
    }) as c_int
}

/// Calls `define` with an atom made from `name`'s bytes (a NUL among them
/// too), freed after; its result below 0 is the exception thrown.
#[expect(unsafe_code, reason = "atoms are made and freed through QuickJS's API")]
fn with_atom(
    ctx: &Ctx<'_>,
    name: &str,
    define: impl FnOnce(*mut qjs::JSContext, qjs::JSAtom) -> c_int,
) -> rquickjs::Result<()> {
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: the live context; `name`'s bytes are read for the call, and
    // the atom is freed once `define` is done with it.
    let defined = unsafe {
        let atom = qjs::JS_NewAtomLen(raw, name.as_ptr().cast(), name.len() as _);
        if atom == qjs::JS_ATOM_NULL {
            return Err(rquickjs::Error::Exception);
        }
        let defined = define(raw, atom);
        qjs::JS_FreeAtom(raw, atom);
        defined
    };
    if defined < 0 {
        Err(rquickjs::Error::Exception)
    } else {
        Ok(())
    }
}

/// Makes the C function and defines it as `atom` on `target` with
/// `flags`; QuickJS's result (below 0 on an exception).
#[expect(
    unsafe_code,
    reason = "rquickjs makes Rust closures only; a C function is made through QuickJS's API"
)]
fn define_now(
    raw: *mut qjs::JSContext,
    target: &Object<'_>,
    atom: qjs::JSAtom,
    call: Call,
    length: c_int,
    flags: c_int,
) -> c_int {
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
    // SAFETY: the live context, an object of it and an atom the caller
    // holds; the function's value is handed to `JS_DefinePropertyValue`,
    // which takes it (an exception value holds nothing).
    unsafe {
        let function = JS_CoderunNewCFunctionAtom(raw, Some(entry), atom, length, kind, magic);
        if qjs::JS_IsException(function) {
            -1
        } else {
            qjs::JS_DefinePropertyValue(raw, target.as_raw(), atom, function, flags)
        }
    }
}
