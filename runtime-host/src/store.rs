//! Everything one run's store holds: its WASI context (nothing granted but
//! the run's clocks and its seeded generators), its memory limiter, its log
//! ledger, its binding calls, and what maps log positions back to the
//! program as written.

use std::sync::Arc;

use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use rand::SeedableRng as _;
use rand::rngs::StdRng;

use crate::bindings::Callees;
use crate::calls::Calls;
use crate::clock::RunClock;
use crate::config::RuntimeConfig;
use crate::durable::Ledger;
use crate::egress::RunEgress;
use crate::guest::Namespace;
use crate::memory::MemoryLimiter;
use crate::output::LogLedger;
use crate::transform::Transformed;

/// Distinct streams drawn from one seed.
const SECURE_STREAM: u64 = 0x7365_6375_7265_0001;
const INSECURE_STREAM: u64 = 0x696e_7365_6375_0002;

/// Everything one run's store holds.
pub(crate) struct RunState {
    wasi: WasiCtx,
    table: ResourceTable,
    pub(crate) limiter: MemoryLimiter,
    pub(crate) logs: LogLedger,
    /// Maps `program.js` positions in log lines to the program as written.
    pub(crate) positions: Option<Arc<Transformed>>,
    pub(crate) calls: Calls,
}

impl RunState {
    pub(crate) fn new(
        config: &RuntimeConfig,
        limiter: MemoryLimiter,
        (namespaces, functions): (Arc<[Namespace]>, Vec<Callees>),
        (ledger, clock, seed): (Ledger, RunClock, u64),
        egress: RunEgress,
    ) -> Self {
        // No environment, arguments, files, sockets or stdin: the guest
        // reaches the host only through its bindings. Its randomness
        // (`crypto.getRandomValues`) comes from the run's seed, so that a
        // record replays; its clocks are the run's.
        let mut wasi = WasiCtx::builder();
        wasi.secure_random(StdRng::seed_from_u64(seed ^ SECURE_STREAM))
            .insecure_random(StdRng::seed_from_u64(seed ^ INSECURE_STREAM))
            .insecure_random_seed(u128::from(seed));
        if let RunClock::Virtual(virtual_clock) = &clock {
            wasi.wall_clock(virtual_clock.wall())
                .monotonic_clock(virtual_clock.monotonic());
        }
        Self {
            wasi: wasi.build(),
            table: ResourceTable::new(),
            limiter,
            logs: LogLedger::new(config.get_max_log_bytes()),
            positions: None,
            calls: Calls::new(config, namespaces, functions, ledger, clock, egress),
        }
    }
}

impl RunState {
    /// Log lines (errors printed with `console.error`) name positions in
    /// the program as written.
    pub(crate) fn with_positions(mut self, transformed: Arc<Transformed>) -> Self {
        self.positions = Some(transformed);
        self
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
