//! The host's script, evaluated to the program's function.

use rquickjs::{Ctx, Function, Value};

/// The host's wrapper around a program: the script is the program's
/// function, `(async function () {…})` (`runtime-host/src/transform.rs`).
const WRAPPER: (&str, &str) = ("(async function () {", "\n})");

/// `JS_EVAL_FLAG_CODERUN_FUNCTION`, the project's QuickJS flag that parses
/// a script in the wrapper's shape as that one function expression (see
/// `js_parse_program` in the patch), rather than through the expression
/// grammar, a frame per level, below which the whole program was parsed.
const EVAL_FUNCTION: i32 = 1 << 12;

/// Evaluates the host's script, as a global script with a backtrace
/// barrier, to the program's function. A script in the wrapper's shape
/// is parsed with [`EVAL_FUNCTION`]; any other as any script.
pub(super) fn eval_program<'js>(
    ctx: &Ctx<'js>,
    source: &str,
    filename: &str,
) -> rquickjs::Result<Function<'js>> {
    use rquickjs::qjs;

    let mut flags = (qjs::JS_EVAL_TYPE_GLOBAL | qjs::JS_EVAL_FLAG_BACKTRACE_BARRIER) as i32;
    if source.starts_with(WRAPPER.0) && source.ends_with(WRAPPER.1) {
        flags |= EVAL_FUNCTION;
    }
    // QuickJS reads the text up to a NUL, which must follow it.
    let script = std::ffi::CString::new(source)?;
    let filename = std::ffi::CString::new(filename)?;
    // SAFETY: both strings are NUL-terminated and outlive the call; the
    // context is alive and not running JavaScript; the value returned is
    // owned, and handed to rquickjs, which frees it.
    let value = unsafe {
        let value = qjs::JS_Eval(
            ctx.as_raw().as_ptr(),
            script.as_ptr(),
            source.len() as _,
            filename.as_ptr(),
            flags,
        );
        Value::from_raw(ctx.clone(), value)
    };
    if value.is_exception() {
        return Err(rquickjs::Error::Exception);
    }
    Function::from_value(value)
}

unsafe extern "C" {
    fn JS_CoderunKeepFrame(ctx: *mut rquickjs::qjs::JSContext, func: rquickjs::qjs::JSValue);
}

/// Leaves the values of `main`'s frame unfreed when it returns or throws
/// (`JS_CoderunKeepFrame`, the project's QuickJS patch): the run ends with
/// it, and the instance goes with all its memory, so the program's data is
/// not torn down value by value first. The value it returns is rendered,
/// and not freed either (`encode`).
pub(super) fn keep_frame(ctx: &Ctx<'_>, main: &Function<'_>) {
    // SAFETY: the context is alive; the call only notes which object is
    // the program's function.
    unsafe { JS_CoderunKeepFrame(ctx.as_raw().as_ptr(), main.as_raw()) }
}
