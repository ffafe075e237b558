//! The JSON object's two functions, native for plain data: `JSON.parse`
//! of a string without a reviver reads it with parse.rs, and
//! `JSON.stringify` of a value without a replacer writes it with the
//! renderer's JSON (render/json.rs, the one a returned value and a
//! binding's argument are written with), laid out with its indent
//! (render/indent.rs). Everything else, and whatever those decline (a
//! reviver or replacer, an indent given as an object or as text that is
//! not ASCII, text that is not JSON, a value that is not plain data: a
//! cycle, a `toJSON`, a class instance, a changed `Object.prototype`...),
//! goes to QuickJS's own functions, which are kept, so the values, the
//! text and the errors a program sees are theirs. Each keeps its standard
//! `name`, `length` and attributes.

use std::cell::Cell;
use std::ffi::c_int;
use std::ptr::NonNull;

use rquickjs::{Ctx, Object, Value, qjs};

use crate::cfunction::{self, Attributes, Call, Entry};

thread_local! {
    /// QuickJS's own `JSON.parse` and `JSON.stringify` (set once, in the
    /// snapshot, and held for the engine's life: the guest never frees
    /// its runtime).
    static ORIGINALS: Cell<Option<Originals>> = const { Cell::new(None) };
}

#[derive(Clone, Copy)]
struct Originals {
    parse: qjs::JSValue,
    stringify: qjs::JSValue,
}

/// Puts the native `JSON.parse` and `JSON.stringify` in place, keeping
/// QuickJS's. Called before the prelude, whose modules keep them. The two
/// are C functions of QuickJS's, as its own are: a call reads its
/// arguments where QuickJS put them, and only `JSON.parse` makes a value
/// through rquickjs.
#[expect(
    unsafe_code,
    reason = "QuickJS's own functions are kept as its values, for the C functions to call"
)]
pub fn install(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    let json: Object = ctx.globals().get("JSON")?;
    let parse: Value = json.get("parse")?;
    let stringify: Value = json.get("stringify")?;
    // SAFETY: both are live values of `ctx`; each keeps the reference taken
    // here for the engine's life.
    let originals = unsafe {
        Originals {
            parse: qjs::JS_DupValue(ctx.as_raw().as_ptr(), parse.as_raw()),
            stringify: qjs::JS_DupValue(ctx.as_raw().as_ptr(), stringify.as_raw()),
        }
    };
    ORIGINALS.with(|cell| cell.set(Some(originals)));
    for (name, entry, length) in [
        ("parse", parse_entry as Entry, 2),
        ("stringify", stringify_entry as Entry, 3),
    ] {
        let call = Call::Plain(entry);
        cfunction::define(ctx, &json, call, name, length, Attributes::BuiltIn)?;
    }
    Ok(())
}

/// Argument `at` of a C function's call, `undefined` past the ones given.
///
/// # Safety
/// `argv` holds `argc` live values.
unsafe fn argument(argc: c_int, argv: *mut qjs::JSValue, at: c_int) -> qjs::JSValue {
    if at < argc && !argv.is_null() {
        // SAFETY: `at` is below `argc` (the caller's promise).
        unsafe { *argv.add(at as usize) }
    } else {
        qjs::JS_UNDEFINED
    }
}

/// QuickJS's own function for what the native one declines, called with
/// the call's own `this` and arguments.
///
/// # Safety
/// As for a C function's entry: `ctx` is live, `argv` holds `argc` values.
#[expect(unsafe_code, reason = "calls QuickJS's function with the raw call")]
unsafe fn original(
    ctx: *mut qjs::JSContext,
    which: fn(Originals) -> qjs::JSValue,
    this: qjs::JSValue,
    argc: c_int,
    argv: *mut qjs::JSValue,
) -> qjs::JSValue {
    match ORIGINALS.with(Cell::get) {
        // SAFETY: the original is live (held since `install`); the call's
        // own arguments are handed on as they are.
        Some(originals) => unsafe { qjs::JS_Call(ctx, which(originals), this, argc, argv) },
        // SAFETY: the live context.
        None => unsafe { qjs::JS_ThrowInternalError(ctx, c"JSON is not installed".as_ptr()) },
    }
}

/// `JSON.parse(text, reviver)`: a string without a reviver is read with
/// parse.rs (a rope, the text `+` builds past 512 characters, flattened
/// first); anything else, and text that is not JSON, by QuickJS's own.
#[expect(
    unsafe_code,
    reason = "the entry point QuickJS calls a C function through"
)]
unsafe extern "C" fn parse_entry(
    ctx: *mut qjs::JSContext,
    this: qjs::JSValue,
    argc: c_int,
    argv: *mut qjs::JSValue,
) -> qjs::JSValue {
    let Some(raw) = NonNull::new(ctx) else {
        return qjs::JS_EXCEPTION;
    };
    // SAFETY: QuickJS calls this with `argc` values at `argv`.
    let (text, reviver) = unsafe { (argument(argc, argv, 0), argument(argc, argv, 1)) };
    // SAFETY: reading tags, and asking whether a live value is a function.
    let native = unsafe {
        matches!(
            qjs::JS_VALUE_GET_TAG(text),
            qjs::JS_TAG_STRING | qjs::JS_TAG_STRING_ROPE
        ) && !qjs::JS_IsFunction(ctx, reviver)
    };
    if native {
        // SAFETY: the live context, held while the call runs; `text` is
        // duplicated, as the `Value` frees it.
        let ctx = unsafe { Ctx::from_raw(raw) };
        let text = unsafe { Value::from_raw(ctx.clone(), qjs::JS_DupValue(raw.as_ptr(), text)) };
        if let Some(Some(value)) =
            crate::render::with_utf8(&ctx, &text, |text| crate::parse::json(&ctx, text))
        {
            // SAFETY: the returned reference is QuickJS's to own; `value`
            // drops its own.
            return unsafe { qjs::JS_DupValue(raw.as_ptr(), value.as_raw()) };
        }
    }
    // SAFETY: the call as QuickJS made it.
    unsafe { original(ctx, |originals| originals.parse, this, argc, argv) }
}

/// `JSON.stringify(value, replacer, space)`: a value without a replacer
/// (`undefined` or `null`, which the standard ignores alike) is written
/// with the renderer's JSON when it is plain data, and laid out with the
/// indent `space` gives when the renderer takes it (see render/indent.rs);
/// anything else by QuickJS's own.
#[expect(
    unsafe_code,
    reason = "the entry point QuickJS calls a C function through"
)]
unsafe extern "C" fn stringify_entry(
    ctx: *mut qjs::JSContext,
    this: qjs::JSValue,
    argc: c_int,
    argv: *mut qjs::JSValue,
) -> qjs::JSValue {
    // SAFETY: QuickJS calls this with `argc` values at `argv`.
    let (value, replacer, space) = unsafe {
        (
            argument(argc, argv, 0),
            argument(argc, argv, 1),
            argument(argc, argv, 2),
        )
    };
    // SAFETY: reading a value's tag.
    let no_replacer = matches!(
        unsafe { qjs::JS_VALUE_GET_TAG(replacer) },
        qjs::JS_TAG_UNDEFINED | qjs::JS_TAG_NULL
    );
    if no_replacer
        && let Some(custom) = crate::engine::inspect_custom_raw()
        && let Some(text) = crate::render::json_spaced_raw(ctx, value, custom, space)
    {
        // SAFETY: the live context QuickJS called this with.
        return unsafe { crate::render::new_string(ctx, &text) };
    }
    // SAFETY: the call as QuickJS made it.
    unsafe { original(ctx, |originals| originals.stringify, this, argc, argv) }
}
