//! The QuickJS engine state and the per-run event loop.
//!
//! All guest state lives in one `Engine` value (plus the `Math.random` state
//! and the calls in flight), created by `initialize` and captured by the
//! snapshot. Only `run` mutates it, once per
//! instance.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use rquickjs::context::EvalOptions;
use rquickjs::promise::PromiseState;
use rquickjs::{
    Array, Coerced, Context, Ctx, Exception, Function, Object, Persistent, Promise, Runtime, Value,
};

use crate::coderun::sandbox::host::{self, LogLevel};
use crate::exports::coderun::sandbox::program::{Namespace, Outcome, Settings, Thrown};

const PRELUDE: &str = include_str!("prelude.js");

/// Name the program's script is evaluated under; the host maps positions in
/// it back to the program as written.
const PROGRAM_FILE: &str = "program.js";

/// QuickJS's own stack-depth check, in bytes of the C shadow stack. Deep
/// recursion then throws a catchable `RangeError` well before the shadow
/// stack (2 MiB, set in `build.rs`) or the wasm stack runs out.
/// Needs `patches/quickjs-wasi-stack-limit.patch`: stock QuickJS ignores it on
/// WASI.
const MAX_STACK_BYTES: usize = 1792 * 1024;

struct Engine {
    runtime: Runtime,
    context: Context,
    /// The object the prelude returned: `installBindings`, `hostError`,
    /// `encodeResult`, `renderThrown`. Never reachable from programs.
    internals: Persistent<Object<'static>>,
}

thread_local! {
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
    /// xorshift64* state behind `Math.random`, reseeded by every run.
    static RANDOM: Cell<u64> = const { Cell::new(0x9E37_79B9_7F4A_7C15) };
    /// The resolving functions of every binding call started and not yet
    /// settled, by call id. Kept on the Rust side, where no program can
    /// reach or patch them.
    static PENDING: RefCell<HashMap<u64, Resolvers>> = RefCell::new(HashMap::new());
}

/// The `resolve` and `reject` functions of a binding call's promise.
struct Resolvers {
    resolve: Persistent<Function<'static>>,
    reject: Persistent<Function<'static>>,
}

/// Creates the runtime and context once; later calls do nothing.
pub fn initialize() {
    ENGINE.with(|cell| {
        if cell.borrow().is_some() {
            return;
        }
        let runtime = Runtime::new().expect("QuickJS runtime creation failed");
        runtime.set_max_stack_size(MAX_STACK_BYTES);
        let context = Context::full(&runtime).expect("QuickJS context creation failed");
        let internals = context
            .with(|ctx| -> rquickjs::Result<_> {
                let natives = Object::new(ctx.clone())?;
                natives.set("hostLog", Function::new(ctx.clone(), host_log)?)?;
                natives.set("hostCall", Function::new(ctx.clone(), host_call)?)?;
                natives.set(
                    "random",
                    Function::new(ctx.clone(), random)?.with_name("random")?,
                )?;
                let mut options = EvalOptions::default();
                options.filename = Some("prelude.js".into());
                let prelude: Function = ctx.eval_with_options(PRELUDE, options)?;
                let internals: Object = prelude.call((natives,))?;
                Ok(Persistent::save(&ctx, internals))
            })
            .expect("the guest prelude failed to evaluate");
        runtime.run_gc();
        *cell.borrow_mut() = Some(Engine {
            runtime,
            context,
            internals,
        });
    });
}

/// Runs one program to its outcome.
pub fn run(source: &str, bindings: &[Namespace], settings: &Settings) -> Outcome {
    initialize();
    // Zero is xorshift's fixed point.
    RANDOM.with(|r| r.set(settings.random_seed | 1));
    ENGINE.with(|cell| {
        let engine = cell.borrow();
        let Some(engine) = engine.as_ref() else {
            return internal_failure("the engine is not initialised");
        };
        // Run `run` once per instance; the stack top is where it starts.
        engine.runtime.set_max_stack_size(MAX_STACK_BYTES);
        engine
            .context
            .with(|ctx| run_in(&ctx, engine.internals.clone(), source, bindings))
    })
}

fn run_in<'js>(
    ctx: &Ctx<'js>,
    internals: Persistent<Object<'static>>,
    source: &str,
    bindings: &[Namespace],
) -> Outcome {
    let internals = match internals.restore(ctx) {
        Ok(internals) => internals,
        Err(_) => return internal_failure("the prelude's internals are gone"),
    };
    if !bindings.is_empty()
        && let Err(error) = install_bindings(ctx, &internals, bindings)
    {
        return thrown(ctx, &internals, error);
    }

    let mut options = EvalOptions::default();
    options.strict = false;
    options.backtrace_barrier = true;
    options.filename = Some(PROGRAM_FILE.into());
    let main: Function = match ctx.eval_with_options(source, options) {
        Ok(main) => main,
        Err(error) => return thrown(ctx, &internals, error),
    };
    let value: Value = match main.call(()) {
        Ok(value) => value,
        Err(error) => return thrown(ctx, &internals, error),
    };
    let Some(promise) = value.as_promise().cloned() else {
        return encode(ctx, &internals, value);
    };

    loop {
        while ctx.execute_pending_job() {}
        match promise.state() {
            PromiseState::Resolved => {
                return match promise.result::<Value>() {
                    Some(Ok(value)) => encode(ctx, &internals, value),
                    Some(Err(error)) => thrown(ctx, &internals, error),
                    None => internal_failure("a settled promise has no result"),
                };
            }
            PromiseState::Rejected => {
                let error = match promise.result::<Value>() {
                    Some(Err(error)) => error,
                    _ => rquickjs::Error::Exception,
                };
                return thrown(ctx, &internals, error);
            }
            PromiseState::Pending => {}
        }
        if PENDING.with(|pending| pending.borrow().is_empty()) {
            return Outcome::Stalled;
        }
        let settled = host::wait_settled();
        if settle(ctx, &internals, settled).is_err() {
            // Only a program that exhausted memory can make settling fail;
            // drop the exception and let the promise stay pending.
            ctx.catch();
        }
    }
}

/// Resolves (with the parsed JSON) or rejects (with an `Error` carrying the
/// host's message) the promise of one settled call.
fn settle<'js>(
    ctx: &Ctx<'js>,
    internals: &Object<'js>,
    settled: host::SettledCall,
) -> rquickjs::Result<()> {
    let Some(resolvers) = PENDING.with(|pending| pending.borrow_mut().remove(&settled.id)) else {
        return Ok(());
    };
    let rejection = match settled.outcome {
        Ok(json) => match ctx.json_parse(json) {
            Ok(value) => return resolvers.resolve.restore(ctx)?.call((value,)),
            Err(rquickjs::Error::Exception) => {
                let why = ctx
                    .catch()
                    .get::<Coerced<String>>()
                    .map_or_else(|_| "unreadable".into(), |why| why.0);
                format!("the host returned malformed JSON: {why}")
            }
            Err(error) => format!("the host returned malformed JSON: {error}"),
        },
        Err(message) => message,
    };
    let error: Value = internals
        .get::<_, Function>("hostError")?
        .call((rejection,))?;
    resolvers.reject.restore(ctx)?.call((error,))
}

fn install_bindings<'js>(
    ctx: &Ctx<'js>,
    internals: &Object<'js>,
    bindings: &[Namespace],
) -> rquickjs::Result<()> {
    let decls = Array::new(ctx.clone())?;
    for (i, namespace) in bindings.iter().enumerate() {
        let entry = Array::new(ctx.clone())?;
        entry.set(0, namespace.global.as_str())?;
        let names = Array::new(ctx.clone())?;
        for (j, name) in namespace.functions.iter().enumerate() {
            names.set(j, name.as_str())?;
        }
        entry.set(1, names)?;
        decls.set(i, entry)?;
    }
    let install: Function = internals.get("installBindings")?;
    install.call((decls,))
}

fn encode<'js>(ctx: &Ctx<'js>, internals: &Object<'js>, value: Value<'js>) -> Outcome {
    let encoded = internals
        .get::<_, Function>("encodeResult")
        .and_then(|encode| encode.call::<_, Option<String>>((value,)));
    match encoded {
        Ok(json) => Outcome::Returned(json),
        Err(error) => {
            let Thrown { message, stack } = render_thrown(ctx, internals, error);
            Outcome::Threw(Thrown {
                message: format!("the returned value could not be serialised: {message}"),
                stack,
            })
        }
    }
}

fn thrown<'js>(ctx: &Ctx<'js>, internals: &Object<'js>, error: rquickjs::Error) -> Outcome {
    Outcome::Threw(render_thrown(ctx, internals, error))
}

fn render_thrown<'js>(ctx: &Ctx<'js>, internals: &Object<'js>, error: rquickjs::Error) -> Thrown {
    if !matches!(error, rquickjs::Error::Exception) {
        return Thrown {
            message: error.to_string(),
            stack: None,
        };
    }
    let value = ctx.catch();
    let rendered = internals
        .get::<_, Function>("renderThrown")
        .and_then(|render| render.call::<_, Object>((value,)))
        .and_then(|rendered| Ok((rendered.get("message")?, rendered.get("stack")?)));
    match rendered {
        Ok((message, stack)) => Thrown { message, stack },
        Err(_) => {
            ctx.catch();
            Thrown {
                message: "a value that could not be rendered was thrown".into(),
                stack: None,
            }
        }
    }
}

fn internal_failure(what: &str) -> Outcome {
    Outcome::Threw(Thrown {
        message: format!("InternalError: {what}"),
        stack: None,
    })
}

fn host_log(level: u32, line: String) {
    let level = match level {
        1 => LogLevel::Info,
        2 => LogLevel::Warn,
        3 => LogLevel::Error,
        4 => LogLevel::Debug,
        _ => LogLevel::Log,
    };
    host::log(level, &line);
}

/// Starts a binding call and returns its promise, which the event loop
/// settles from Rust; throws the host's message if the call was refused.
fn host_call<'js>(
    ctx: Ctx<'js>,
    namespace: u32,
    function: u32,
    args_json: String,
) -> rquickjs::Result<Promise<'js>> {
    // The promise first: once the host has the call, nothing may fail
    // before its resolvers are recorded.
    let (promise, resolve, reject) = ctx.promise()?;
    match host::start_call(namespace, function, &args_json) {
        Ok(id) => {
            let resolvers = Resolvers {
                resolve: Persistent::save(&ctx, resolve),
                reject: Persistent::save(&ctx, reject),
            };
            PENDING.with(|pending| pending.borrow_mut().insert(id, resolvers));
            Ok(promise)
        }
        Err(message) => Err(Exception::throw_message(&ctx, &message)),
    }
}

fn random() -> f64 {
    RANDOM.with(|state| {
        let mut x = state.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        state.set(x);
        // The top 53 bits of the xorshift64* output, scaled into [0, 1).
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    })
}
