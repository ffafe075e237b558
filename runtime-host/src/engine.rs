//! The engines and the compiled guest: wasmtime configured for one
//! `RuntimeConfig` (fuel or epochs, stacks, the pooling allocator's slots),
//! the guest component loaded through the compile cache, and the
//! `InstancePre` every run instantiates from.
//!
//! A runtime spreads its runs over one or more instance pools
//! (`RuntimeConfig::instance_pools`), each an engine with a pooling
//! allocator of its own and the guest compiled into it. A thread takes its
//! runs from one pool while that pool has room: the slots a core reuses
//! were then last written by that core, and the pools' locks and counters
//! stay in one core's cache. With one pool shared by all cores, each core
//! reuses the slots the others freed, and a short run costs about a third
//! more CPU on two cores than on one (`benches/OPTIMISATIONS.md`).

use std::sync::atomic::{AtomicUsize, Ordering};

use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::clock::{Clock, RunClock};
use crate::compile_cache;
use crate::config::RuntimeConfig;
use crate::durable::Ledger;
use crate::egress::{Policy, RunEgress};
use crate::epoch::EpochTicker;
use crate::error::RuntimeError;
use crate::guest::{Guest, GuestPre};
use crate::memory::{MAX_TABLE_ELEMENTS, MemoryLimiter};
use crate::shards::Sharded;
use crate::store::RunState;

/// The wasm stack the guest may use. QuickJS's own depth check (on the C
/// shadow stack, which the guest's patch makes every recursive frame
/// charge) fires first: its deepest recursions measured so far (nested
/// `eval` parentheses, `JSON.parse` arrays, regular expression groups) use
/// well under half of this.
const MAX_WASM_STACK: usize = 32 * 1024 * 1024;
/// The fiber stack the guest runs on: the wasm stack plus room for the host
/// functions it calls.
const ASYNC_STACK: usize = MAX_WASM_STACK + 1024 * 1024;
/// Core instances, memories and tables one guest component instantiates.
const CORE_INSTANCES_PER_RUN: u32 = 8;
const MEMORIES_PER_RUN: u32 = 2;
const TABLES_PER_RUN: u32 = 4;
const WASM_PAGE: u64 = 64 * 1024;
/// The most of a slot's memory (and of its tables) reset in place when a
/// run ends; dirtied pages past it are unmapped.
const KEEP_RESIDENT_BYTES: usize = 1024 * 1024;
/// The part of a slot's fiber stack zeroed in place when a run ends; the
/// rest (what a deep recursion touched) is given back to the system, so a
/// pool of deep recursions does not stay resident. A `return 1 + 1` touches
/// 12 KiB of the stack and the typical 40-line program 24 KiB; every run
/// pays for zeroing all of this (128 KiB took 1.55 µs, 7 % of a cold run),
/// and only a deeper run pays page faults past it.
const STACK_KEEP_RESIDENT_BYTES: usize = 32 * 1024;

/// One pool of instance slots: an engine with its own pooling allocator,
/// and the guest compiled into it.
pub(crate) struct Pool {
    pub(crate) engine: Engine,
    pub(crate) pre: GuestPre<RunState>,
    /// The runs the pool's allocator has slots for.
    slots: usize,
    /// The runs holding one of them now (each through a [`Claim`]).
    taken: AtomicUsize,
}

/// The compiled guest in each of a runtime's instance pools.
pub(crate) struct CompiledGuest {
    pools: Sharded<Pool>,
    /// Present when the guest is unmetered: it yields on epochs, which the
    /// ticker advances in every pool's engine.
    pub(crate) ticker: Option<EpochTicker>,
}

/// A run's slot in one of the pools, given back when dropped.
pub(crate) struct Claim<'a>(&'a Pool);

impl std::ops::Deref for Claim<'_> {
    type Target = Pool;

    fn deref(&self) -> &Pool {
        self.0
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.0.taken.fetch_sub(1, Ordering::AcqRel);
    }
}

impl CompiledGuest {
    pub(crate) fn new(config: &RuntimeConfig) -> Result<Self, RuntimeError> {
        let engine_error = |e: wasmtime::Error| RuntimeError::Engine(format!("{e:#}"));
        let runs = config.get_max_concurrent_runs();
        let count = config.pool_count();
        // Every pool has the same number of slots, and together at least
        // `max_concurrent_runs`: a run holding one of the runtime's permits
        // always finds a pool with room.
        let slots = runs.div_ceil(count);
        let engines = (0..count)
            .map(|_| engine(config, slots).map_err(engine_error))
            .collect::<Result<Vec<_>, _>>()?;
        let components =
            compile_cache::load(&engines, config.get_compile_cache_dir()).map_err(engine_error)?;
        let ticker = if config.get_fuel_metering() {
            None
        } else {
            Some(EpochTicker::start(&engines).map_err(|e| {
                RuntimeError::Engine(format!("the epoch ticker could not be started: {e}"))
            })?)
        };
        let pools = engines
            .into_iter()
            .zip(components)
            .map(|(engine, component)| {
                let pre = instantiate_pre(&engine, &component).map_err(engine_error)?;
                Ok(Pool {
                    engine,
                    pre,
                    slots,
                    taken: AtomicUsize::new(0),
                })
            })
            .collect::<Result<Vec<_>, RuntimeError>>()?;
        let pools = Sharded::from_values(pools)
            .ok_or_else(|| RuntimeError::Engine("the runtime has no instance pool".to_owned()))?;
        Ok(Self { pools, ticker })
    }

    /// How many pools the runs are spread over.
    pub(crate) fn pool_count(&self) -> usize {
        self.pools.len()
    }

    /// A slot for one run: in the pool this thread takes its runs from if
    /// it has room, else in the next pool that has. The caller must hold
    /// one of the runtime's `max_concurrent_runs` permits, and keep it
    /// while the claim lives: the pools' slots add up to at least that many,
    /// so some pool has room whenever the caller looks.
    pub(crate) fn claim(&self) -> Claim<'_> {
        loop {
            for pool in self.pools.local_first() {
                let room = pool
                    .taken
                    .fetch_update(Ordering::AcqRel, Ordering::Acquire, |taken| {
                        (taken < pool.slots).then_some(taken + 1)
                    });
                if room.is_ok() {
                    return Claim(pool);
                }
            }
            // Every pool looked full as it was read, while runs ended and
            // others claimed their slots: look again.
            std::thread::yield_now();
        }
    }
}

/// An engine configured for `config`, its pooling allocator sized for
/// `runs` runs at once.
fn engine(config: &RuntimeConfig, runs: usize) -> wasmtime::Result<Engine> {
    let runs = u32::try_from(runs).unwrap_or(u32::MAX);
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
        .async_stack_keep_resident(STACK_KEEP_RESIDENT_BYTES)
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
        .async_stack_zeroing(true)
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    // Every compiled function starts on a 64-byte cache line (wasmtime's
    // default is 32 bytes). Where QuickJS's interpreter loop falls relative
    // to the cache lines otherwise moved with the size of the functions
    // compiled before it: a change to the guest's Rust that left the
    // interpreter's code as it was made fib(27) 1.2x slower with fuel
    // metering off, and 64-byte starts took it back (benches/OPTIMISATIONS.md,
    // sixteenth pass). The padding costs about 70 KB of code, shared by all
    // instances.
    #[allow(
        unsafe_code,
        reason = "Cranelift's flags are set through an unsafe method; this one only aligns code"
    )]
    // SAFETY: the flag sets a minimum alignment for each function's code,
    // which the compiler honours like its own default; it changes no
    // instruction and no assumption the generated code relies on.
    unsafe {
        wasm_config.cranelift_flag_set("log2_min_function_alignment", "6");
    }
    Engine::new(&wasm_config)
}

/// The guest's imports (WASI and the host interface) linked once, for every
/// run in `engine` to instantiate from.
fn instantiate_pre(engine: &Engine, component: &Component) -> wasmtime::Result<GuestPre<RunState>> {
    let mut linker = Linker::<RunState>::new(engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    Guest::add_to_linker::<_, HasSelf<_>>(&mut linker, |state| state)?;
    GuestPre::new(linker.instantiate_pre(component)?)
}

impl CompiledGuest {
    /// The bytes of linear memory a fresh instance starts with, measured by
    /// instantiating one (which also proves the guest instantiates at all).
    pub(crate) fn initial_memory(&self, config: &RuntimeConfig) -> Result<u64, RuntimeError> {
        let limiter = MemoryLimiter::probe(config.get_max_memory_bytes());
        let state = RunState::new(
            config,
            limiter,
            (std::sync::Arc::from([]), Vec::new()),
            (Ledger::live(false, 0), RunClock::new(Clock::Real), 0),
            RunEgress::new(std::sync::Arc::new(Policy::closed())),
        );
        let pool = self.pools.get(0);
        let mut store = wasmtime::Store::new(&pool.engine, state);
        store.limiter(|state| &mut state.limiter);
        let paced = if config.get_fuel_metering() {
            store.set_fuel(u64::MAX)
        } else {
            store.set_epoch_deadline(u64::MAX / 2);
            Ok(())
        };
        // Instantiation runs no guest code and calls no host function, so it
        // needs no async runtime to complete.
        paced
            .and_then(|()| futures::executor::block_on(pool.pre.instantiate_async(&mut store)))
            .map_err(|e| {
                RuntimeError::Engine(format!("the guest could not be instantiated: {e:#}"))
            })?;
        Ok(store.data().limiter.created_bytes())
    }
}
