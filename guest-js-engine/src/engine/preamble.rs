//! Preambles: the host's one line of JavaScript for every run of a
//! request, compiled once to bytecode in an instance of its own (so that
//! a program burns the same fuel whether or not its preamble was
//! compiled before), then read and run at the start of each run.

use rquickjs::{Ctx, Value, qjs};

use super::{MAX_STACK_BYTES, initialize, render_thrown, with_state};

/// The file name a preamble is compiled under: stack traces show it.
const PREAMBLE_NAME: &std::ffi::CStr = c"preamble.js";

/// Compiles a preamble to bytecode without running it (see
/// `compile-preamble` in `wit/sandbox.wit`).
pub fn compile_preamble(source: &str) -> Result<Vec<u8>, String> {
    initialize();
    // QuickJS reads its input up to a terminating NUL.
    let input = std::ffi::CString::new(source)
        .map_err(|e| format!("it holds a NUL byte at byte {}", e.nul_position()))?;
    with_state(|state| {
        let engine = state.engine.borrow();
        let Some(engine) = engine.as_ref() else {
            return Err("the engine is not initialised".to_owned());
        };
        engine.runtime.set_max_stack_size(MAX_STACK_BYTES);
        engine.context.with(|ctx| {
            let internals = engine
                .internals
                .clone()
                .restore(&ctx)
                .map_err(|_| "the prelude's internals are gone".to_owned())?;
            write_script(&ctx, &input).map_err(|error| render_thrown(&ctx, &internals, error))
        })
    })
}

/// `input` compiled as global code (not strict, like the program's
/// script), as bytecode.
#[expect(
    unsafe_code,
    reason = "rquickjs has no safe way to write a script's bytecode"
)]
fn write_script(ctx: &Ctx<'_>, input: &std::ffi::CStr) -> rquickjs::Result<Vec<u8>> {
    let raw = ctx.as_raw().as_ptr();
    let flags = (qjs::JS_EVAL_TYPE_GLOBAL | qjs::JS_EVAL_FLAG_COMPILE_ONLY) as i32;
    // SAFETY: `raw` is the live context `ctx` borrows; `input` is
    // NUL-terminated and its length excludes the NUL, as `JS_Eval` wants.
    // The compiled function is owned by `compiled`, which frees it; the
    // buffer `JS_WriteObject` returns is copied, then freed with the
    // context's allocator it came from.
    unsafe {
        let compiled = qjs::JS_Eval(
            raw,
            input.as_ptr(),
            input.to_bytes().len() as _,
            PREAMBLE_NAME.as_ptr(),
            flags,
        );
        if qjs::JS_VALUE_GET_TAG(compiled) == qjs::JS_TAG_EXCEPTION {
            return Err(rquickjs::Error::Exception);
        }
        let compiled = Value::from_raw(ctx.clone(), compiled);
        let mut len = 0;
        let buffer = qjs::JS_WriteObject(
            raw,
            &mut len,
            compiled.as_raw(),
            qjs::JS_WRITE_OBJ_BYTECODE as i32,
        );
        if buffer.is_null() {
            return Err(rquickjs::Error::Exception);
        }
        let bytes = std::slice::from_raw_parts(buffer, len as usize).to_vec();
        qjs::js_free(raw, buffer.cast());
        Ok(bytes)
    }
}

/// Runs a preamble `compile_preamble` made.
#[expect(
    unsafe_code,
    reason = "rquickjs has no safe way to read a script's bytecode"
)]
pub(super) fn run_preamble(ctx: &Ctx<'_>, bytecode: &[u8]) -> rquickjs::Result<()> {
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: `raw` is the live context `ctx` borrows. QuickJS reads
    // bytecode without checking it, by design: these bytes are what
    // `compile_preamble` wrote, in an instance of this same guest, from
    // the host's preamble, and the host passes them back unchanged and
    // never takes them from a program (were they hostile, what they could
    // reach is this instance's memory, which the host already treats as
    // the program's). `JS_ReadObject` copies them; `JS_EvalFunction` takes
    // the function it made; the result is owned by a `Value`, which frees it.
    unsafe {
        let function = qjs::JS_ReadObject(
            raw,
            bytecode.as_ptr(),
            bytecode.len() as _,
            qjs::JS_READ_OBJ_BYTECODE as i32,
        );
        if qjs::JS_VALUE_GET_TAG(function) == qjs::JS_TAG_EXCEPTION {
            return Err(rquickjs::Error::Exception);
        }
        let result = qjs::JS_EvalFunction(raw, function);
        if qjs::JS_VALUE_GET_TAG(result) == qjs::JS_TAG_EXCEPTION {
            return Err(rquickjs::Error::Exception);
        }
        drop(Value::from_raw(ctx.clone(), result));
    }
    Ok(())
}
