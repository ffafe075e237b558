//! The wasmtime side of the guest: engine, compiled component, per-run store
//! state, and the host imports of `wit/sandbox.wit`.
//!
//! # Per-run lifecycle
//! One `Store<RunState>` per run, instantiated from a shared `InstancePre`
//! with the pooling allocator (copy-on-write from the Wizer snapshot). The
//! guest's `run` export is called once; each binding call it starts is
//! polled once inside `start-call` (a call that is ready at once goes to a
//! per-run queue), and otherwise spawned on tokio to report back through a
//! per-run channel; `wait-settled` drains the queue, then the channel. When
//! the run is over the store is dropped, and with it the channel's receiver:
//! a call that settles later has nowhere to go.
//!
//! Everything the guest sends is checked here: indices, JSON, the number of
//! calls in flight. A violation of the protocol traps the run; it never
//! panics the host.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::task::{Context, Poll, Waker};

use futures::FutureExt;
use serde_json::Value;
use tokio::sync::mpsc;
use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{
    Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, ResourceLimiter,
};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::config::RuntimeConfig;
use crate::error::RuntimeError;
use crate::failure::{MemoryCapExceeded, ProtocolViolation};
use crate::logs::LogLedger;
use crate::request::{BindingResult, CodeBindingFunction};

wasmtime::component::bindgen!({
    world: "guest",
    path: "../wit",
    // Only `wait-settled` can block; the other two return at once, and a
    // synchronous import skips the future wasmtime builds for an async one.
    imports: {
        "coderun:sandbox/host.start-call": trappable,
        "coderun:sandbox/host.log": trappable,
        default: async | trappable,
    },
    exports: { default: async },
});

pub(crate) use coderun::sandbox::host::{LogLevel, SettledCall};
pub(crate) use exports::coderun::sandbox::program::{Namespace, Outcome, Settings};

/// The pre-initialised guest component, embedded at build time.
const GUEST_WASM: &[u8] = include_bytes!(env!("CODERUN_GUEST_WASM"));

/// The wasm stack the guest may use. QuickJS's own depth check (on the C
/// shadow stack) fires long before this for JavaScript recursion.
const MAX_WASM_STACK: usize = 16 * 1024 * 1024;
/// The fiber stack the guest runs on: the wasm stack plus room for the host
/// functions it calls.
const ASYNC_STACK: usize = MAX_WASM_STACK + 1024 * 1024;
/// Core instances, memories and tables one guest component instantiates.
const CORE_INSTANCES_PER_RUN: u32 = 8;
const MEMORIES_PER_RUN: u32 = 2;
const TABLES_PER_RUN: u32 = 4;
const MAX_TABLE_ELEMENTS: usize = 100_000;
const WASM_PAGE: u64 = 64 * 1024;
/// The most of a slot's memory (and of its tables) reset in place when a
/// run ends; dirtied pages past it are unmapped.
const KEEP_RESIDENT_BYTES: usize = 1024 * 1024;

/// A compiled guest bound to an engine configured for one `RuntimeConfig`.
pub(crate) struct CompiledGuest {
    pub(crate) engine: Engine,
    pub(crate) pre: GuestPre<RunState>,
    /// Present when the guest is unmetered: it yields on epochs.
    pub(crate) ticker: Option<EpochTicker>,
}

/// Compiled guests, serialised, by engine compatibility hash: runtimes in one
/// process compile the component once (Cranelift takes a second or more) and
/// deserialise it after that (milliseconds).
static COMPILED: LazyLock<Mutex<HashMap<u64, Arc<[u8]>>>> = LazyLock::new(Default::default);

impl CompiledGuest {
    pub(crate) fn new(config: &RuntimeConfig) -> Result<Self, RuntimeError> {
        let engine_error = |e: wasmtime::Error| RuntimeError::Engine(format!("{e:#}"));
        let runs = u32::try_from(config.get_max_concurrent_runs()).unwrap_or(u32::MAX);
        let memory_cap = config
            .get_max_memory_bytes()
            .div_ceil(WASM_PAGE)
            .saturating_mul(WASM_PAGE);

        let mut pool = PoolingAllocationConfig::new();
        pool.total_component_instances(runs)
            .total_core_instances(runs.saturating_mul(CORE_INSTANCES_PER_RUN))
            .max_core_instances_per_component(CORE_INSTANCES_PER_RUN)
            .total_memories(runs.saturating_mul(MEMORIES_PER_RUN))
            .max_memories_per_component(MEMORIES_PER_RUN)
            .total_tables(runs.saturating_mul(TABLES_PER_RUN))
            .max_tables_per_component(TABLES_PER_RUN)
            .table_elements(MAX_TABLE_ELEMENTS)
            .total_stacks(runs)
            .max_memory_size(usize::try_from(memory_cap).unwrap_or(usize::MAX));
        // A slot's memory and tables are reset by scanning for the pages the
        // last run dirtied (`PAGEMAP_SCAN`, Linux 6.7+) and copying those
        // back from the image, instead of unmapping everything and taking a
        // page fault on every page the next run touches.
        pool.linear_memory_keep_resident(KEEP_RESIDENT_BYTES)
            .table_keep_resident(KEEP_RESIDENT_BYTES)
            .pagemap_scan(Enabled::Auto);

        // A metered guest counts fuel, and yields to the executor on fuel
        // too; an unmetered one compiles without fuel checks and yields at
        // each epoch tick instead. Either way a spinning guest yields, so
        // that abort and the wall clock can stop it.
        //
        // The guest uses the component model's synchronous ABI (its async
        // host import runs on a fiber), so the component-model-async
        // machinery is off: with it on, every store carries a concurrent
        // task state, and dropping the store builds an error value (with a
        // backtrace when `RUST_BACKTRACE` is set), which made it the largest
        // cost of a cold run after the memory reset.
        let metered = config.get_fuel_metering();
        let mut wasm_config = Config::new();
        wasm_config
            .consume_fuel(metered)
            .epoch_interruption(!metered)
            .concurrency_support(false)
            .max_wasm_stack(MAX_WASM_STACK)
            .async_stack_size(ASYNC_STACK)
            .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        let engine = Engine::new(&wasm_config).map_err(engine_error)?;
        let component =
            load_component(&engine, config.get_compile_cache_dir()).map_err(engine_error)?;

        let mut linker = Linker::<RunState>::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker).map_err(engine_error)?;
        Guest::add_to_linker::<_, HasSelf<_>>(&mut linker, |state| state).map_err(engine_error)?;
        let pre = linker.instantiate_pre(&component).map_err(engine_error)?;
        let pre = GuestPre::new(pre).map_err(engine_error)?;
        let ticker = if metered {
            None
        } else {
            Some(EpochTicker::start(&engine).map_err(|e| {
                RuntimeError::Engine(format!("the epoch ticker could not be started: {e}"))
            })?)
        };
        Ok(Self {
            engine,
            pre,
            ticker,
        })
    }
}

/// How often an unmetered guest is interrupted to yield to the executor.
const EPOCH_TICK: std::time::Duration = std::time::Duration::from_millis(1);

/// Advances an engine's epoch every [`EPOCH_TICK`], on a thread of its own,
/// while at least one run of that engine is active; parked while none is,
/// so an idle runtime costs no wake-ups. Stopped when dropped.
pub(crate) struct EpochTicker {
    shared: Arc<TickerShared>,
    thread: std::thread::Thread,
}

struct TickerShared {
    /// Runs that need the epoch to advance: the number of live [`Pacing`]s.
    active: AtomicUsize,
    stopped: AtomicBool,
}

impl EpochTicker {
    fn start(engine: &Engine) -> std::io::Result<Self> {
        let shared = Arc::new(TickerShared {
            active: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
        });
        let state = shared.clone();
        let engine = engine.weak();
        let handle = std::thread::Builder::new()
            .name("coderun-epoch".into())
            .spawn(move || {
                while !state.stopped.load(Ordering::Acquire) {
                    if state.active.load(Ordering::Acquire) == 0 {
                        // `pace` unparks; a wake-up that comes before the
                        // park makes it return at once.
                        std::thread::park();
                        continue;
                    }
                    std::thread::sleep(EPOCH_TICK);
                    let Some(engine) = engine.upgrade() else {
                        break;
                    };
                    engine.increment_epoch();
                }
            })?;
        Ok(Self {
            shared,
            thread: handle.thread().clone(),
        })
    }

    /// Keeps the epoch advancing until the returned value is dropped.
    pub(crate) fn pace(&self) -> Pacing {
        if self.shared.active.fetch_add(1, Ordering::AcqRel) == 0 {
            self.thread.unpark();
        }
        Pacing(self.shared.clone())
    }
}

impl Drop for EpochTicker {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

/// One run's claim on the epoch ticker (see [`EpochTicker::pace`]).
pub(crate) struct Pacing(Arc<TickerShared>);

impl Drop for Pacing {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The compiled guest for `engine`: from the on-disk cache in `cache_dir`,
/// else from this process's cache, else compiled now; a cache that missed
/// is filled.
fn load_component(engine: &Engine, cache_dir: Option<&Path>) -> wasmtime::Result<Component> {
    let mut hasher = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    GUEST_WASM.hash(&mut hasher);
    let key = hasher.finish();
    let file = cache_dir.map(|dir| dir.join(format!("coderun-guest-{key:016x}.cwasm")));
    // Read, not mapped: a file changed while mapped would fault the process.
    if let Some((file, bytes)) = file
        .as_deref()
        .and_then(|file| Some((file, std::fs::read(file).ok()?)))
    {
        #[expect(
            unsafe_code,
            reason = "loading compiled code from the configured cache directory"
        )]
        // SAFETY: the file was written by `store_on_disk` below from
        // `Component::serialize` (to a temporary name, then renamed, so it is
        // never seen half-written), under a name keyed by the engine's
        // compatibility hash and the guest's bytes; wasmtime checks its
        // header against this engine again. The directory is trusted by
        // contract (`RuntimeConfig::compile_cache_dir`).
        match unsafe { Component::deserialize(engine, &bytes) } {
            Ok(component) => return Ok(component),
            Err(error) => tracing::warn!(
                "ignoring the compiled guest at {}: {error:#}",
                file.display()
            ),
        }
    }
    let cached = COMPILED
        .lock()
        .map(|cache| cache.get(&key).cloned())
        .unwrap_or(None);
    let deserialised = cached.and_then(|bytes| {
        #[expect(
            unsafe_code,
            reason = "deserialising a component this process compiled"
        )]
        // SAFETY: `bytes` came from `Component::serialize` in this process,
        // for an engine with the same compatibility hash, and was never
        // written anywhere outside this process's memory.
        let component = unsafe { Component::deserialize(engine, &bytes) };
        component.ok().map(|component| (component, Some(bytes)))
    });
    let (component, bytes) = match deserialised {
        Some(found) => found,
        None => compile(engine, key)?,
    };
    if let (Some(file), Some(bytes)) = (file, bytes)
        && let Err(error) = store_on_disk(&file, &bytes)
    {
        tracing::warn!(
            "the compiled guest could not be cached at {}: {error}",
            file.display()
        );
    }
    Ok(component)
}

/// Compiles the guest and keeps it, serialised, for later runtimes of this
/// process.
fn compile(engine: &Engine, key: u64) -> wasmtime::Result<(Component, Option<Arc<[u8]>>)> {
    let component = Component::new(engine, GUEST_WASM)?;
    let bytes: Option<Arc<[u8]>> = component.serialize().ok().map(Into::into);
    if let (Some(bytes), Ok(mut cache)) = (&bytes, COMPILED.lock()) {
        cache.insert(key, bytes.clone());
    }
    Ok((component, bytes))
}

/// Writes `bytes` to `file` atomically: to a unique temporary name in the
/// same directory, then renamed over the final name.
fn store_on_disk(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let temporary = dir.join(format!(
        ".{}.{}-{}.tmp",
        file.file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("guest"),
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&temporary, bytes)?;
    std::fs::rename(&temporary, file).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })
}

/// Refuses memory growth past the cap, by trapping: QuickJS would turn a
/// refused `memory.grow` into a catchable error, and the contract wants the
/// run to end.
pub(crate) struct MemoryLimiter {
    max_bytes: usize,
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_bytes {
            return Err(MemoryCapExceeded.into());
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }
}

/// Everything one run's store holds.
pub(crate) struct RunState {
    wasi: WasiCtx,
    table: ResourceTable,
    pub(crate) limiter: MemoryLimiter,
    pub(crate) logs: LogLedger,
    calls: Calls,
}

impl RunState {
    pub(crate) fn new(config: &RuntimeConfig, functions: Vec<Vec<CodeBindingFunction>>) -> Self {
        // No environment, arguments, files, sockets or stdin: the guest
        // reaches the host only through its bindings.
        let wasi = WasiCtx::builder().build();
        let (sender, receiver) = mpsc::unbounded_channel();
        Self {
            wasi,
            table: ResourceTable::new(),
            limiter: MemoryLimiter {
                max_bytes: usize::try_from(config.get_max_memory_bytes()).unwrap_or(usize::MAX),
            },
            logs: LogLedger::new(config.get_max_log_bytes()),
            calls: Calls {
                functions,
                next_id: 1,
                in_flight: 0,
                max_pending: config.get_max_pending_calls(),
                ready: VecDeque::new(),
                sender,
                receiver,
            },
        }
    }
}

impl WasiView for RunState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// The binding calls of one run.
struct Calls {
    /// `functions[namespace][function]`, in the order the guest was told.
    functions: Vec<Vec<CodeBindingFunction>>,
    next_id: u64,
    in_flight: usize,
    max_pending: usize,
    /// Calls that settled inside `start-call`, before any task was spawned.
    ready: VecDeque<(u64, BindingResult)>,
    sender: mpsc::UnboundedSender<(u64, BindingResult)>,
    receiver: mpsc::UnboundedReceiver<(u64, BindingResult)>,
}

impl coderun::sandbox::host::Host for RunState {
    fn start_call(
        &mut self,
        namespace: u32,
        function: u32,
        args_json: String,
    ) -> wasmtime::Result<Result<u64, String>> {
        let calls = &mut self.calls;
        let Some(binding) = calls
            .functions
            .get(namespace as usize)
            .and_then(|functions| functions.get(function as usize))
        else {
            return Err(ProtocolViolation(format!(
                "start-call named binding {namespace}/{function}, which was never declared"
            ))
            .into());
        };
        if calls.in_flight >= calls.max_pending {
            return Ok(Err(format!(
                "too many binding calls in flight: at most {} may be pending at once \
                 (config.max_pending_calls); await some before starting more",
                calls.max_pending
            )));
        }
        let args: Value = match serde_json::from_str(&args_json) {
            Ok(args) => args,
            Err(e) => return Ok(Err(format!("the call's argument is not valid JSON: {e}"))),
        };
        let id = calls.next_id;
        calls.next_id += 1;
        calls.in_flight += 1;
        // A panicking binding is a host bug, but it must not leave the
        // program waiting forever or take the run down with it.
        let panicked = || Err("the binding panicked".into());
        let mut call = match std::panic::catch_unwind(AssertUnwindSafe(|| binding.call(args))) {
            Ok(call) => AssertUnwindSafe(call)
                .catch_unwind()
                .map(move |result| result.unwrap_or_else(|_| panicked()))
                .boxed(),
            Err(_) => futures::future::ready(panicked()).boxed(),
        };
        // Poll once here: a binding that is ready at once (a cache hit, a
        // pure computation) settles without a task, a channel or a wake-up.
        // The no-op waker is sound because a pending call is spawned, and
        // the task polls it again with a real waker.
        let mut cx = Context::from_waker(Waker::noop());
        if let Poll::Ready(result) = call.as_mut().poll(&mut cx) {
            calls.ready.push_back((id, result));
            return Ok(Ok(id));
        }
        let sender = calls.sender.clone();
        tokio::spawn(async move {
            let result = call.await;
            // The run may be over; then nobody listens and that is fine.
            let _ = sender.send((id, result));
        });
        Ok(Ok(id))
    }

    async fn wait_settled(&mut self) -> wasmtime::Result<SettledCall> {
        let calls = &mut self.calls;
        if calls.in_flight == 0 {
            return Err(ProtocolViolation("wait-settled with no call in flight".into()).into());
        }
        let (id, result) = match calls.ready.pop_front() {
            Some(settled) => settled,
            None => match calls.receiver.recv().await {
                Some(settled) => settled,
                None => {
                    return Err(ProtocolViolation("the call channel closed".into()).into());
                }
            },
        };
        calls.in_flight -= 1;
        let outcome = match result {
            Ok(value) => Ok(value.to_string()),
            Err(error) => Err(error.message().to_owned()),
        };
        Ok(SettledCall { id, outcome })
    }

    fn log(&mut self, _level: LogLevel, line: String) -> wasmtime::Result<()> {
        self.logs.push(line);
        Ok(())
    }
}
