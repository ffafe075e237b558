//! The QuickJS engine state and the per-run event loop.
//!
//! All guest state lives in one `State` value: the QuickJS engine, created
//! by `initialize` and captured by the snapshot, and what the natives reach
//! while a program runs (the `Math.random` state, the calls in flight, the
//! run's start time). Only `run` mutates it, once per instance (or
//! `compile_preamble`, in an instance of its own).
//!
//! The event loop gives the program one settled call per turn, at the point
//! where nothing is runnable and no timer is due: the next one the host
//! handed over with its start (`ready`), else the one `wait-settled`
//! returns. The host hands a call over with its start only when it is the
//! one `wait-settled` would have returned next, so the program sees the
//! same order either way (`wit/sandbox.wit`).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use rquickjs::context::EvalOptions;
use rquickjs::promise::PromiseState;
use rquickjs::{Coerced, Context, Ctx, Function, Object, Persistent, Promise, Runtime, Value};

use crate::cfunction;
use crate::coderun::sandbox::host;
use crate::exports::coderun::sandbox::program::{Namespace, Outcome, Settings};
use crate::render::AddressHash;

mod bindings;
mod fetch;
mod natives;
mod outcome;
mod preamble;
mod program;

use bindings::{install_bindings, settle_promise};
use natives::*;
use outcome::*;
pub use preamble::compile_preamble;
use preamble::run_preamble;
use program::{eval_program, keep_frame};

const PRELUDE: &str = include_str!("prelude.js");

/// QuickJS's own stack-depth check, in bytes of the C shadow stack (4 MiB,
/// set in `build.rs`). Deep recursion, in JavaScript or in the engine's own
/// recursive C code (the parser behind `eval` and `new Function`,
/// `JSON.parse`, regular expressions), then throws a catchable `RangeError`
/// before the shadow stack or the wasm stack runs out: about 7,400 frames of
/// plain JavaScript recursion. Needs `patches/quickjs-wasi-stack-limit.patch`:
/// stock QuickJS ignores the limit on WASI, and on wasm its check measures
/// only the shadow stack, which the patch makes each checked frame charge.
const MAX_STACK_BYTES: usize = 3840 * 1024;

struct Engine {
    runtime: Runtime,
    context: Context,
    /// The object the prelude returned: `callBinding`, `failedCall`,
    /// `hostError`, `encodeResult`, `display`, `renderThrown`, `fireTimer`,
    /// `custom`, `stringWidth`. Never reachable from programs.
    internals: Persistent<Object<'static>>,
    /// The prelude's `util.inspect.custom` symbol (its `custom`), which
    /// every native JSON and display checks the prototypes for: kept
    /// here, not looked up by name each time.
    custom: Persistent<Value<'static>>,
    /// `custom` as QuickJS's own value, for the natives QuickJS calls as C
    /// functions: alive as long as `custom` is.
    custom_raw: rquickjs::qjs::JSValue,
}

/// Everything the guest keeps between `initialize` and `run`, and what the
/// natives the program calls into read and write while it runs. One value,
/// with a cell per part: the engine is borrowed for the whole run, while the
/// natives it calls reach the other parts.
pub(crate) struct State {
    engine: RefCell<Option<Engine>>,
    /// xorshift64* state behind `Math.random`, reseeded by every run.
    random: Cell<u64>,
    /// The promise of every binding call started and not yet settled, by
    /// call id. Kept on the Rust side, where no program can reach it to
    /// settle it.
    pending: RefCell<HashMap<u64, InFlight, AddressHash>>,
    /// Calls the host settled in `start-call`, in the order it handed them
    /// over: each is given to the program where the event loop would next
    /// call `wait-settled`. Their promises are still in `pending`.
    ready: RefCell<VecDeque<host::SettledCall>>,
    /// Whether the program may have a timer set: false until it sets one
    /// (the prelude's `timerSet`), and again once `fireTimer` finds none.
    /// The event loop asks the prelude for a due timer only while it is
    /// true.
    timers: Cell<bool>,
    /// Whether the program is inside a `console.group`: the prelude says
    /// so as the group opens and ends (`consoleGrouped`), and the native
    /// console methods then leave the line to JavaScript, which indents it.
    console_grouped: Cell<bool>,
    /// The run's cap on a value's JSON (`Settings::max_value_chars`), which
    /// bounds the tape a binding's argument is written as
    /// ([`outcome::max_tape_bytes`]).
    max_value_bytes: Cell<u32>,
    /// When the run started, for `performance.now()`, and the wall-clock
    /// time then, in milliseconds, for `performance.timeOrigin`.
    started: Cell<Option<(Instant, f64)>>,
    /// The run's namespaces, as the host gave them: a binding QuickJS
    /// calls as a C function finds its namespace, index and label
    /// (`tools.search`) here from its place among them (`bindings.rs`).
    /// Kept, not copied: a registry's names and labels are lifted into
    /// the guest on every run, and the instance's memory goes with it.
    namespaces: RefCell<Vec<Namespace>>,
    /// What each of those bindings' C function is made from when the
    /// program first reads it (`cfunction::define_lazy`): filled once, as
    /// the bindings are installed, and neither moved nor written after,
    /// since QuickJS reads it until the run ends.
    lazy: RefCell<Vec<cfunction::LazyEntry>>,
}

impl State {
    /// The state before `initialize`, in a static of `alloc.rs`'s, on the
    /// page of statics every run writes.
    pub(crate) const fn new() -> Self {
        Self {
            engine: RefCell::new(None),
            random: Cell::new(0x9E37_79B9_7F4A_7C15),
            pending: RefCell::new(HashMap::with_hasher(AddressHash::new())),
            ready: RefCell::new(VecDeque::new()),
            timers: Cell::new(false),
            console_grouped: Cell::new(false),
            max_value_bytes: Cell::new(0),
            started: Cell::new(None),
            namespaces: RefCell::new(Vec::new()),
            lazy: RefCell::new(Vec::new()),
        }
    }
}

/// Calls `f` with the guest's state.
fn with_state<R>(f: impl FnOnce(&State) -> R) -> R {
    f(&crate::alloc::HOT.engine)
}

/// A binding call in flight: its promise, which has no resolving
/// functions (`bindings::settle_promise` settles it).
struct InFlight {
    promise: Persistent<Promise<'static>>,
    /// A `fetch`: it resolves with the response's head and body.
    fetch: bool,
}

/// Creates the runtime and context once; later calls do nothing.
pub fn initialize() {
    with_state(|state| {
        let cell = &state.engine;
        if cell.borrow().is_some() {
            return;
        }
        // QuickJS's runtime struct goes on the page of statics every run
        // writes (alloc.rs).
        crate::alloc::runtime_next();
        let runtime = Runtime::new_with_alloc(crate::alloc::QuickJsAllocator)
            .expect("QuickJS runtime creation failed");
        runtime.set_max_stack_size(MAX_STACK_BYTES);
        let context = Context::full(&runtime).expect("QuickJS context creation failed");
        context.with(|ctx| {
            // SAFETY: the runtime is alive and not running JavaScript.
            let rt = unsafe { rquickjs::qjs::JS_GetRuntime(ctx.as_raw().as_ptr()) };
            assert!(
                crate::alloc::runtime_placed(rt.cast()),
                "QuickJS's runtime struct is not in its slot in alloc.rs (did it outgrow it?)"
            );
            // The platform's code keeps no source text in the snapshot (the
            // project's QuickJS patch): its functions print as native ones.
            // SAFETY: as above.
            unsafe { JS_CoderunStripSource(rt, true) }
        });
        let internals = context
            .with(|ctx| -> rquickjs::Result<_> {
                // Before the prelude, whose modules keep `JSON.parse`.
                crate::json::install(&ctx)?;
                crate::render::init_widths(ctx.as_raw().as_ptr());
                let natives = natives::natives(&ctx)?;
                crate::web::register(&ctx, &natives)?;
                let modules = crate::web::modules(&ctx)?;
                let mut options = EvalOptions::default();
                options.filename = Some("prelude.js".into());
                let prelude: Function = ctx.eval_with_options(PRELUDE, options)?;
                let internals: Object = prelude.call((natives, modules))?;
                Ok(Persistent::save(&ctx, internals))
            })
            .unwrap_or_else(|error| {
                // At build time, under Wizer: say what threw.
                let thrown = context.with(|ctx| {
                    let value = ctx.catch();
                    let stack = value
                        .as_object()
                        .and_then(|error| error.get::<_, String>("stack").ok());
                    format!("{:?} {}", value, stack.unwrap_or_default())
                });
                panic!("the guest prelude failed to evaluate: {error}: {thrown}")
            });
        runtime.run_gc();
        let heap = usize::try_from(runtime.memory_usage().malloc_size).unwrap_or(0);
        runtime.set_gc_threshold(heap + GC_HEADROOM);
        // Last: what runs allocate from here on lands on pages of their
        // own, not on the snapshot's (alloc.rs): QuickJS's small blocks
        // from new arenas (the snapshot's part-free ones leave the free
        // lists, by the project's patch), everything else from the second
        // heap.
        context.with(|ctx| {
            // SAFETY: the runtime is alive and not running JavaScript.
            unsafe {
                let rt = rquickjs::qjs::JS_GetRuntime(ctx.as_raw().as_ptr());
                JS_CoderunStripSource(rt, false);
                JS_CoderunSealArenas(rt);
                JS_CoderunSetTimezoneOffset(crate::web::intl_zones::local_offset_minutes);
            }
        });
        let (custom, custom_raw) = context
            .with(|ctx| -> rquickjs::Result<_> {
                let custom: Value = internals.clone().restore(&ctx)?.get("custom")?;
                let raw = custom.as_raw();
                Ok((Persistent::save(&ctx, custom), raw))
            })
            .unwrap_or_else(|error| panic!("the prelude gave no `custom` symbol: {error}"));
        crate::alloc::seal();
        // Then what every run writes of the snapshot moves to the start
        // of the reserve, ahead of the run's own allocations (the patch).
        context.with(|ctx| {
            // SAFETY: the context is alive and not running JavaScript.
            unsafe { JS_CoderunSealLayout(ctx.as_raw().as_ptr()) }
        });
        *cell.borrow_mut() = Some(Engine {
            runtime,
            context,
            internals,
            custom,
            custom_raw,
        });
    });
}

/// The prelude's `util.inspect.custom` symbol, which the native renderer
/// checks the intrinsic prototypes for; `None` before the prelude exists
/// (while the snapshot is made).
pub fn inspect_custom<'js>(ctx: &Ctx<'js>) -> Option<Value<'js>> {
    let custom = with_state(|state| {
        state
            .engine
            .borrow()
            .as_ref()
            .map(|engine| engine.custom.clone())
    })?;
    custom.restore(ctx).ok()
}

/// [`inspect_custom`] as QuickJS's own value, borrowed (the engine holds
/// it for its life).
pub fn inspect_custom_raw() -> Option<rquickjs::qjs::JSValue> {
    with_state(|state| {
        state
            .engine
            .borrow()
            .as_ref()
            .map(|engine| engine.custom_raw)
    })
}

/// What a run may allocate past the snapshot's heap before QuickJS's first
/// cycle collection, which walks the whole heap, the snapshot's included
/// (the snapshot otherwise keeps whatever threshold initialisation left,
/// and W6's program collected once a run). Small, so that a program whose
/// cyclic garbage only the collector frees still fits under the smallest
/// memory caps: 1 MiB made W6 0.92–0.95× as long; 4 MiB, 0.90×, ran a
/// 9 MiB-capped program out of memory.
const GC_HEADROOM: usize = 1 << 20;

unsafe extern "C" {
    fn JS_CoderunSealArenas(rt: *mut rquickjs::qjs::JSRuntime);
    fn JS_CoderunSealLayout(ctx: *mut rquickjs::qjs::JSContext);
    fn JS_CoderunStripSource(rt: *mut rquickjs::qjs::JSRuntime, strip: bool);
    fn JS_CoderunSetTimezoneOffset(offset: extern "C" fn(i64) -> std::ffi::c_int);
}

/// Runs one program to its outcome.
pub fn run(source: &str, bindings: Vec<Namespace>, settings: &Settings) -> Outcome {
    initialize();
    with_state(|state| {
        *state.namespaces.borrow_mut() = bindings;
        // Zero is xorshift's fixed point.
        state.random.set(settings.random_seed | 1);
        state.max_value_bytes.set(settings.max_value_chars);
        if let Err(message) = crate::web::intl_zones::set_local_zone(settings.time_zone.as_deref())
        {
            return Outcome::Threw(message);
        }
        state.started.set(Some((Instant::now(), wall_clock_ms())));
        let engine = state.engine.borrow();
        let Some(engine) = engine.as_ref() else {
            return internal_failure("the engine is not initialised");
        };
        // The context is reached without rquickjs's lock of the runtime
        // (`Context::with` and `Runtime::set_max_stack_size` take it): the
        // lock's flag lies on a page of the snapshot nothing else of a run
        // writes, and each run copied that page to set and clear it. The
        // guest runs one program on one thread and never re-enters `run`,
        // and nothing a run calls takes the lock, which is all it guards.
        let context = engine.context.as_raw();
        // SAFETY: the runtime and context live as long as the instance
        // (in the guest's state), no JavaScript is running, and the `Ctx`
        // made here is the only handle used until it is dropped at the end
        // of the run.
        unsafe {
            // Run `run` once per instance; the stack top is where it starts.
            rquickjs::qjs::JS_SetMaxStackSize(
                rquickjs::qjs::JS_GetRuntime(context.as_ptr()),
                MAX_STACK_BYTES as rquickjs::qjs::size_t,
            );
            let ctx = Ctx::from_raw(context);
            // Read, never written again in the run.
            let bindings = state.namespaces.borrow();
            run_in(&ctx, engine.internals.clone(), source, &bindings, settings)
        }
    })
}

fn run_in<'js>(
    ctx: &Ctx<'js>,
    internals: Persistent<Object<'static>>,
    source: &str,
    bindings: &[Namespace],
    settings: &Settings,
) -> Outcome {
    let internals = match internals.restore(ctx) {
        Ok(internals) => internals,
        Err(_) => return internal_failure("the prelude's internals are gone"),
    };
    if !bindings.is_empty()
        && let Err(error) = install_bindings(ctx, bindings)
    {
        return thrown(ctx, &internals, error);
    }
    if let Some(bytecode) = &settings.preamble
        && let Err(error) = run_preamble(ctx, bytecode)
    {
        return thrown(ctx, &internals, error);
    }

    let main = match eval_program(ctx, source, &settings.script_name) {
        Ok(main) => main,
        Err(error) => return thrown(ctx, &internals, error),
    };
    keep_frame(ctx, &main);
    let value: Value = match main.call(()) {
        Ok(value) => value,
        Err(error) => return thrown(ctx, &internals, error),
    };
    let Some(promise) = value.as_promise().cloned() else {
        return encode(ctx, &internals, value, settings);
    };
    let fire_timer: Function = match internals.get("fireTimer") {
        Ok(fire_timer) => fire_timer,
        Err(error) => return thrown(ctx, &internals, error),
    };

    loop {
        while ctx.execute_pending_job() {}
        match promise.state() {
            PromiseState::Resolved => {
                return match promise.result::<Value>() {
                    Some(Ok(value)) => encode(ctx, &internals, value, settings),
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
        // One timer at a time: the jobs its callback queues run first.
        let next_timer = if with_state(|state| state.timers.get()) {
            match fire_timer.call::<_, f64>(()) {
                Ok(next) => next,
                Err(error) => return thrown(ctx, &internals, error),
            }
        } else {
            -1.0
        };
        if next_timer == 0.0 {
            continue;
        }
        if next_timer < 0.0 {
            with_state(|state| state.timers.set(false));
        }
        let timeout = (next_timer > 0.0).then(|| next_timer.ceil() as u64);
        let settled = match with_state(|state| state.ready.borrow_mut().pop_front()) {
            Some(settled) => Some(settled),
            None => {
                if timeout.is_none() && with_state(|state| state.pending.borrow().is_empty()) {
                    return Outcome::Stalled;
                }
                // `None`: the timeout passed first, and a timer is due.
                host::wait_settled(timeout)
            }
        };
        if let Some(settled) = settled
            && settle(ctx, &internals, settled).is_err()
        {
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
    let Some(call) = with_state(|state| state.pending.borrow_mut().remove(&settled.id)) else {
        return Ok(());
    };
    let promise = call.promise.restore(ctx)?;
    let resolve = |value: Value<'js>| {
        settle_promise(ctx, &promise, &value, false);
        Ok(())
    };
    let rejection = match settled.outcome {
        Ok(json) if call.fetch => match fetch::response(ctx, settled.id, json) {
            Ok(head) => return resolve(head),
            Err(why) => why,
        },
        Ok(json) => {
            if let Some(value) = json_literal(ctx, &json) {
                return resolve(value);
            }
            if let Some(value) = crate::parse::json(ctx, &json) {
                return resolve(value);
            }
            match ctx.json_parse(json) {
                Ok(value) => return resolve(value),
                Err(rquickjs::Error::Exception) => {
                    let why = ctx
                        .catch()
                        .get::<Coerced<String>>()
                        .map_or_else(|_| "unreadable".into(), |why| why.0);
                    format!("the host returned malformed JSON: {why}")
                }
                Err(error) => format!("the host returned malformed JSON: {error}"),
            }
        }
        Err(message) => message,
    };
    let error: Value = internals
        .get::<_, Function>("hostError")?
        .call((rejection,))?;
    settle_promise(ctx, &promise, &error, true);
    Ok(())
}

/// The value of JSON text `json` when it is a literal that needs no parser:
/// `true`, `false`, `null`, or an integer in `i32` range written as JSON
/// writes it (most bindings' answers are small). `None` for anything else,
/// which `JSON.parse` reads.
fn json_literal<'js>(ctx: &Ctx<'js>, json: &str) -> Option<Value<'js>> {
    match json {
        "true" => Some(Value::new_bool(ctx.clone(), true)),
        "false" => Some(Value::new_bool(ctx.clone(), false)),
        "null" => Some(Value::new_null(ctx.clone())),
        _ => {
            let digits = json.strip_prefix('-').unwrap_or(json);
            // No `-0` (a float), no leading zeros, no `+`.
            let integer = json != "-0"
                && digits.bytes().all(|byte| byte.is_ascii_digit())
                && (digits == "0" || !digits.starts_with('0'));
            let n: i32 = json.parse().ok().filter(|_| integer)?;
            Some(Value::new_int(ctx.clone(), n))
        }
    }
}

/// The longest tape plain data may be written as in this run.
fn tape_limit() -> usize {
    outcome::max_tape_bytes(with_state(|state| state.max_value_bytes.get()))
}
