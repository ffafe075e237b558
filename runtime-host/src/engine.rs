//! The engine and the compiled guest: wasmtime configured for one
//! `RuntimeConfig` (fuel or epochs, stacks, the pooling allocator's slots),
//! the guest component loaded through the compile cache, and the
//! `InstancePre` every run instantiates from.

use wasmtime::component::{HasSelf, Linker};
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
/// pool of deep recursions does not stay resident.
const STACK_KEEP_RESIDENT_BYTES: usize = 128 * 1024;

/// A compiled guest bound to an engine configured for one `RuntimeConfig`.
pub(crate) struct CompiledGuest {
    pub(crate) engine: Engine,
    pub(crate) pre: GuestPre<RunState>,
    /// Present when the guest is unmetered: it yields on epochs.
    pub(crate) ticker: Option<EpochTicker>,
}

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
        let engine = Engine::new(&wasm_config).map_err(engine_error)?;
        let component =
            compile_cache::load(&engine, config.get_compile_cache_dir()).map_err(engine_error)?;

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

impl CompiledGuest {
    /// The bytes of linear memory a fresh instance starts with, measured by
    /// instantiating one (which also proves the guest instantiates at all).
    pub(crate) fn initial_memory(&self, config: &RuntimeConfig) -> Result<u64, RuntimeError> {
        let limiter = MemoryLimiter::probe(config.get_max_memory_bytes());
        let state = RunState::new(
            config,
            limiter,
            (&[], Vec::new()),
            (Ledger::live(false, 0), RunClock::new(Clock::Real), 0),
            RunEgress::new(std::sync::Arc::new(Policy::closed())),
        );
        let mut store = wasmtime::Store::new(&self.engine, state);
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
            .and_then(|()| futures::executor::block_on(self.pre.instantiate_async(&mut store)))
            .map_err(|e| {
                RuntimeError::Engine(format!("the guest could not be instantiated: {e:#}"))
            })?;
        Ok(store.data().limiter.created_bytes())
    }
}
