//! The natives the prelude is given (made here): the host's log and
//! calls, the console's line writer and methods, timers, the run's
//! clock and its random generators.

use std::ffi::c_int;
use std::time::SystemTime;

use rquickjs::{ArrayBuffer, Ctx, Exception, Function, Object, qjs};

use super::bindings::host_call;
use super::{fetch, with_state};
use crate::cfunction;
use crate::coderun::sandbox::host::{self, LogLevel};

/// The object of natives the prelude is given (the web platform's join
/// them in `web::register`).
pub(super) fn natives<'js>(ctx: &Ctx<'js>) -> rquickjs::Result<Object<'js>> {
    let natives = Object::new(ctx.clone())?;
    natives.set("hostLog", Function::new(ctx.clone(), host_log)?)?;
    cfunction::define(
        ctx,
        &natives,
        cfunction::Call::Plain(plain_line),
        "plainLine",
        2,
        cfunction::Attributes::Assigned,
    )?;
    natives.set("consoleMethod", Function::new(ctx.clone(), console_method)?)?;
    natives.set(
        "consoleGrouped",
        Function::new(ctx.clone(), console_grouped)?,
    )?;
    natives.set("hostCall", Function::new(ctx.clone(), host_call)?)?;
    natives.set("timerSet", Function::new(ctx.clone(), timer_set)?)?;
    natives.set(
        "random",
        Function::new(ctx.clone(), random)?.with_name("random")?,
    )?;
    natives.set("now", Function::new(ctx.clone(), now)?.with_name("now")?)?;
    natives.set("timeOrigin", Function::new(ctx.clone(), time_origin)?)?;
    natives.set("randomBytes", Function::new(ctx.clone(), random_bytes)?)?;
    natives.set("hostFetch", Function::new(ctx.clone(), fetch::host_fetch)?)?;
    natives.set(
        "cancelFetch",
        Function::new(ctx.clone(), fetch::cancel_fetch)?,
    )?;
    Ok(natives)
}

pub(super) fn host_log(level: u32, line: String) {
    let level = match level {
        1 => LogLevel::Info,
        2 => LogLevel::Warn,
        3 => LogLevel::Error,
        4 => LogLevel::Debug,
        _ => LogLevel::Log,
    };
    host::log(level, &line);
}

/// `natives.plainLine(level, data)`: `format(data)` written as a console
/// line at `level` when `data` holds only primitives and plain data (see
/// [`console_line`](crate::render::console_line)): true; false leaves the
/// line to JavaScript. A C function: `console.log` calls it on every line,
/// and a closure's trampoline and conversions were a quarter of the call.
#[expect(
    unsafe_code,
    reason = "the entry point QuickJS calls a C function through"
)]
pub(super) unsafe extern "C" fn plain_line(
    ctx: *mut qjs::JSContext,
    _this: qjs::JSValue,
    argc: c_int,
    argv: *mut qjs::JSValue,
) -> qjs::JSValue {
    if argc < 2 || argv.is_null() {
        return qjs::JS_FALSE;
    }
    // SAFETY: QuickJS calls the entry with `argc` live values at `argv`;
    // the value's tag and payload are read, and `data` is only read.
    let (level, data) = unsafe {
        let level = *argv;
        let level = match qjs::JS_VALUE_GET_NORM_TAG(level) {
            qjs::JS_TAG_INT => u32::try_from(qjs::JS_VALUE_GET_INT(level)).unwrap_or(0),
            _ => 0,
        };
        (level, *argv.add(1))
    };
    // Without the prelude's inspect symbol (not while the prelude itself
    // runs), only a line of primitives is written here.
    match crate::render::console_line(ctx, data, crate::engine::inspect_custom_raw) {
        Some(line) => {
            host_log(level, line);
            qjs::JS_TRUE
        }
        None => qjs::JS_FALSE,
    }
}

/// `natives.consoleMethod(level, name, fallback)`: a console method of
/// `level` (`console.log` and its kin), a C function named `name` of no
/// declared parameters. Outside a group it writes a line of primitives
/// and plain data itself, from the call's arguments as they are (see
/// [`console_line`](crate::render::console_line)); anything else it hands
/// to `fallback(level, data)`, `data` an array of the arguments. A method
/// of JavaScript's, `log(...data)`, made an array of the arguments and a
/// frame on every call: two thirds of a `console.log(0)`.
pub(super) fn console_method<'js>(
    ctx: Ctx<'js>,
    level: i32,
    name: rquickjs::String<'js>,
    fallback: rquickjs::Function<'js>,
) -> rquickjs::Result<rquickjs::Value<'js>> {
    let name = name.to_string()?;
    let name = std::ffi::CString::new(name)
        .map_err(|_| Exception::throw_type(&ctx, "a console method's name holds a NUL"))?;
    let mut data = [fallback.as_raw()];
    // SAFETY: the context is alive; QuickJS copies the name and takes a
    // reference of its own to the fallback, which `data` only lends.
    let method = unsafe {
        qjs::JS_NewCFunctionData2(
            ctx.as_raw().as_ptr(),
            Some(console_entry),
            name.as_ptr(),
            0,
            level,
            1,
            data.as_mut_ptr(),
        )
    };
    // SAFETY: reading the tag of the value made above.
    if unsafe { qjs::JS_IsException(method) } {
        return Err(rquickjs::Error::Exception);
    }
    // SAFETY: a new value of the context, whose reference the result takes.
    Ok(unsafe { rquickjs::Value::from_raw(ctx, method) })
}

/// The entry of [`console_method`]'s functions: `magic` is the level,
/// `data` the fallback.
#[expect(
    unsafe_code,
    reason = "the entry point QuickJS calls a C function through"
)]
unsafe extern "C" fn console_entry(
    ctx: *mut qjs::JSContext,
    _this: qjs::JSValue,
    argc: c_int,
    argv: *mut qjs::JSValue,
    magic: c_int,
    data: *mut qjs::JSValue,
) -> qjs::JSValue {
    let count = usize::try_from(argc).unwrap_or(0);
    // SAFETY: QuickJS calls the entry with `argc` live values at `argv`,
    // which the call holds while it runs.
    let args = if count == 0 || argv.is_null() {
        &[][..]
    } else {
        unsafe { std::slice::from_raw_parts(argv, count) }
    };
    let level = u32::try_from(magic).unwrap_or(0);
    if !with_state(|state| state.console_grouped.get())
        && let Some(line) =
            crate::render::console_args_line(ctx, args, crate::engine::inspect_custom_raw)
    {
        host_log(level, line);
        return qjs::JS_UNDEFINED;
    }
    // SAFETY: the arguments are duplicated for the array, which takes
    // them (and frees them if it fails); `data` holds the fallback for the
    // function's life; the array is the call's, freed after it.
    unsafe {
        let values: Vec<qjs::JSValue> =
            args.iter().map(|&arg| qjs::JS_DupValue(ctx, arg)).collect();
        let array = qjs::JS_NewArrayFrom(ctx, argc, values.as_ptr());
        if qjs::JS_IsException(array) {
            return array;
        }
        let mut call_args = [qjs::JS_MKVAL(qjs::JS_TAG_INT, magic), array];
        let result = qjs::JS_Call(ctx, *data, qjs::JS_UNDEFINED, 2, call_args.as_mut_ptr());
        qjs::JS_FreeValue(ctx, array);
        result
    }
}

/// `natives.consoleGrouped(grouped)`: whether the program is now inside a
/// `console.group`.
pub(super) fn console_grouped(grouped: bool) {
    with_state(|state| state.console_grouped.set(grouped));
}

/// The prelude set a timer: the event loop asks it for due timers again.
pub(super) fn timer_set() {
    with_state(|state| state.timers.set(true));
}

pub(super) fn random() -> f64 {
    with_state(|state| {
        let mut x = state.random.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        state.random.set(x);
        // The top 53 bits of the xorshift64* output, scaled into [0, 1).
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    })
}

/// `performance.now()`: milliseconds since the run started, from the
/// monotonic clock (QuickJS's own measures from when the snapshot was
/// taken, on another machine).
pub(super) fn now() -> f64 {
    with_state(|state| {
        state
            .started
            .get()
            .map_or(0.0, |(started, _)| started.elapsed().as_secs_f64() * 1000.0)
    })
}

/// `performance.timeOrigin`: the wall-clock time the run started, in
/// milliseconds since the Unix epoch.
pub(super) fn time_origin() -> f64 {
    with_state(|state| state.started.get().map_or(0.0, |(_, origin)| origin))
}

/// `crypto.getRandomValues`: `length` bytes (at most 64 KiB, checked by
/// the prelude) from the host's `wasi:random` generator for the run.
///
/// WASI is called directly rather than through wasi-libc's `getentropy`,
/// which frees the list the call returns with the C library's `free`: the
/// list is allocated by the component ABI's `cabi_realloc`, on Rust's
/// allocator, which after the snapshot is not the C library's (alloc.rs).
pub(super) fn random_bytes<'js>(ctx: Ctx<'js>, length: u32) -> rquickjs::Result<ArrayBuffer<'js>> {
    let length = (length as usize).min(MAX_RANDOM_BYTES);
    let mut list = [0usize; 2];
    // SAFETY: the import writes the list's pointer and length into `list`;
    // the list was allocated with `cabi_realloc` (Rust's global allocator)
    // with alignment 1, so it is a `Vec<u8>` of that length and capacity.
    let bytes = unsafe {
        wasi_get_random_bytes(length as u64, list.as_mut_ptr());
        let bytes = if list[1] == 0 {
            Vec::new()
        } else {
            Vec::from_raw_parts(list[0] as *mut u8, list[1], list[1])
        };
        if bytes.len() != length {
            return Err(Exception::throw_internal(
                &ctx,
                "the host's random generator failed",
            ));
        }
        bytes
    };
    ArrayBuffer::new(ctx, bytes)
}

pub(super) const MAX_RANDOM_BYTES: usize = 65536;

#[link(wasm_import_module = "wasi:random/random@0.2.6")]
unsafe extern "C" {
    /// `get-random-bytes: func(len: u64) -> list<u8>`, lowered: the list's
    /// pointer and length are written at the second argument.
    #[link_name = "get-random-bytes"]
    fn wasi_get_random_bytes(len: u64, list: *mut usize);
}

pub(super) fn wall_clock_ms() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |since| since.as_secs_f64() * 1000.0)
}
