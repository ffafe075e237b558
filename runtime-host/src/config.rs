//! The runtime's budgets and limits: the one place they are defaulted and
//! validated. A request carries none of them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::durable::SigningKey;
use crate::egress::{NetworkPolicy, Policy};
use crate::error::ConfigError;
use crate::output::MIN_BUDGET_BYTES;

const MIB: u64 = 1024 * 1024;
/// The smallest memory cap the guest can start in: its snapshot alone takes
/// 8.5 MiB (the 4 MiB shadow stack, its data, QuickJS's heap), and a cap
/// below it failed only when the runtime was built, with wasmtime's words
/// (`tests/runtime/lifecycle.rs` runs a program at this cap).
const MIN_MEMORY_BYTES: u64 = 9 * MIB;
/// wasm32's address space.
const MAX_MEMORY_BYTES: u64 = 4 * 1024 * MIB;
const MAX_WALL_CLOCK: Duration = Duration::from_secs(24 * 60 * 60);
const MAX_CONCURRENT_RUNS: usize = 10_000;
/// Each pool holds its own copy of the compiled guest.
const MAX_INSTANCE_POOLS: usize = 64;
/// The pools a runtime has by default: one per usable core, up to this.
const DEFAULT_MAX_INSTANCE_POOLS: usize = 8;
/// The front end holds the program, its syntax tree and its output in host
/// memory at once (tens of bytes per byte of source).
const MAX_PROGRAM_BYTES: usize = 64 * 1024 * 1024;
/// The front end's stack grows with the nesting it accepts (a few KiB per
/// level).
const MAX_NESTING_DEPTH: usize = 10_000;
/// HMAC-SHA256 keys shorter than its output are weaker than the hash.
const MIN_KEY_BYTES: usize = 32;
/// Below this a budget could not admit even one run.
const MIN_TOTAL_MEMORY_BYTES: u64 = MIN_MEMORY_BYTES;

/// Configuration of a [`WasmCodeRuntime`](crate::WasmCodeRuntime).
///
/// Setters return `&mut Self` for chaining; the values are validated when the
/// runtime is built, and an invalid one fails construction with a
/// [`ConfigError`] naming the key and the value.
///
/// ```
/// use std::time::Duration;
/// use coderun_runtime::RuntimeConfig;
///
/// let mut config = RuntimeConfig::new();
/// config.fuel(1_000_000_000).wall_clock(Duration::from_secs(5));
/// assert_eq!(config.get_fuel(), 1_000_000_000);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeConfig {
    fuel: u64,
    fuel_metering: bool,
    wall_clock: Duration,
    max_memory_bytes: u64,
    max_log_bytes: usize,
    max_value_bytes: usize,
    max_error_bytes: usize,
    max_program_bytes: usize,
    max_nesting_depth: usize,
    max_total_memory_bytes: Option<u64>,
    max_concurrent_runs: usize,
    instance_pools: Option<usize>,
    max_pending_calls: usize,
    max_record_bytes: usize,
    continuation_ttl: Duration,
    continuation_key: Option<SigningKey>,
    compile_cache_dir: Option<PathBuf>,
    network: NetworkPolicy,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            fuel: 5_000_000_000,
            fuel_metering: true,
            wall_clock: Duration::from_secs(30),
            max_memory_bytes: 128 * MIB,
            max_log_bytes: 1024 * 1024,
            max_value_bytes: 1024 * 1024,
            max_error_bytes: 64 * 1024,
            max_program_bytes: 1024 * 1024,
            max_nesting_depth: 1000,
            max_total_memory_bytes: None,
            max_concurrent_runs: 1000,
            instance_pools: None,
            max_pending_calls: 1024,
            max_record_bytes: 64 * 1024 * 1024,
            continuation_ttl: Duration::from_secs(7 * 24 * 60 * 60),
            continuation_key: None,
            compile_cache_dir: None,
            network: NetworkPolicy::default(),
        }
    }
}

/// Each budget's setter (documented once, here) and its getter, `get_` and
/// the setter's name.
macro_rules! budgets {
    ($($(#[$doc:meta])* $name:ident, $getter:ident: $ty:ty;)*) => {
        impl RuntimeConfig {
            $(
                $(#[$doc])*
                pub fn $name(&mut self, value: $ty) -> &mut Self {
                    self.$name = value;
                    self
                }

                #[doc = concat!("See [`", stringify!($name), "`](Self::", stringify!($name), ").")]
                pub fn $getter(&self) -> $ty {
                    self.$name
                }
            )*
        }
    };
}

budgets! {
    /// The fuel budget of one run: wasm instructions the guest may execute
    /// (roughly; wasmtime charges about one unit per instruction). Fuel is
    /// deterministic: the same program with the same budget stops at the same
    /// point every time. Time spent awaiting bindings burns none. A run that
    /// exhausts it ends as a `timeout` naming the fuel budget.
    ///
    /// By default this is `5_000_000_000` (a few seconds of JavaScript).
    fuel, get_fuel: u64;

    /// Whether the fuel budget is enforced. With metering off,
    /// [`fuel`](Self::fuel) is ignored, `CodeRunResult::fuel_consumed` is
    /// always 0, and only the wall clock (and abort) ends a run that never
    /// does. The guest is then compiled without fuel checks and made to
    /// yield by epoch interruption instead (a thread advances the epoch
    /// every millisecond while one of the runtime's runs is active, and
    /// is parked while none is). Epoch checks cost about what fuel checks
    /// do (the figures are in `benches/OPTIMISATIONS.md`), so turning
    /// metering off is for hosts that want only a wall-clock budget, not a
    /// large speed-up.
    ///
    /// By default this is `true`.
    fuel_metering, get_fuel_metering: bool;

    /// The wall-clock budget of one run, from submission to settlement,
    /// including time spent waiting for a free instance slot and awaiting
    /// bindings. A run that exceeds it ends as a `timeout` naming the
    /// wall-clock budget.
    ///
    /// By default this is `30s`.
    wall_clock, get_wall_clock: Duration;

    /// The cap on the guest's linear memory, in bytes (rounded up to whole
    /// 64 KiB wasm pages). A run whose guest tries to grow past it ends as
    /// `worker-exit` naming the cap, even if the program catches QuickJS's
    /// out-of-memory error. Must be between 9 MiB and 4 GiB.
    ///
    /// By default this is `134217728` (128 MiB).
    max_memory_bytes, get_max_memory_bytes: u64;

    /// The cap on the total bytes of console output kept per run (each line
    /// counts its UTF-8 length plus 32, about what the host holds for a line
    /// and what it takes as JSON, so that a flood of empty lines is capped
    /// too). Output past it is dropped after a
    /// single in-band marker line, which counts against the cap. At least
    /// 128.
    ///
    /// By default this is `1048576` (1 MiB).
    max_log_bytes, get_max_log_bytes: usize;

    /// The cap on the returned value's size, in bytes of JSON, and on each
    /// binding call's argument. A larger value comes back as a string cut at
    /// a UTF-8 boundary and ending in a marker (within the cap); a larger
    /// argument rejects that call. At least 128.
    ///
    /// By default this is `1048576` (1 MiB).
    max_value_bytes, get_max_value_bytes: usize;

    /// The cap on the failure message, in bytes: what the program threw
    /// (message and stack), a rejection it did not catch, a syntax error's
    /// excerpt; and each binding rejection's message as the program sees it.
    /// A longer message is cut at a UTF-8 boundary and ends in a marker
    /// (within the cap). At least 128.
    ///
    /// By default this is `65536` (64 KiB).
    max_error_bytes, get_max_error_bytes: usize;

    /// The longest program accepted, in bytes of UTF-8 source. A longer one
    /// is refused before it is parsed, as an `exception` saying so. The
    /// TypeScript front end runs on the host, outside the guest's memory cap,
    /// and holds tens of bytes per byte of source while it works. At most
    /// 64 MiB.
    ///
    /// By default this is `1048576` (1 MiB).
    max_program_bytes, get_max_program_bytes: usize;

    /// The deepest nesting of syntax accepted: brackets, blocks and chained
    /// operators (`a = b = c`, `!!x`, `x.a.b`, `if (a) if (b) …`) each count
    /// a level, measured by a scan before the program is parsed. A deeper
    /// program is refused as an `exception` naming the limit and the line and
    /// column where it was crossed. This is what keeps the host's parser
    /// from overflowing its stack; typical programs measure in the tens. At
    /// most 10,000.
    ///
    /// By default this is `1000`.
    max_nesting_depth, get_max_nesting_depth: usize;

    /// The most linear memory all of the runtime's concurrent runs may hold
    /// together, in bytes. A run waits (within its wall clock) until the
    /// memory it starts with fits; a running guest whose growth would take
    /// the total past the budget ends as `worker-exit` naming this key. Each
    /// run is still capped by [`max_memory_bytes`](Self::max_memory_bytes).
    /// `None` derives the budget from the machine when the runtime is built:
    /// half of its physical memory (4 GiB where that cannot be read); see
    /// `WasmCodeRuntime::total_memory_budget`. At least 9 MiB.
    ///
    /// By default this is `None` (half the machine's physical memory).
    max_total_memory_bytes, get_max_total_memory_bytes: Option<u64>;

    /// How many runs may execute at once; each holds one slot of the pooling
    /// allocator, which reserves (but does not commit) address space for all
    /// of them up front. Further runs wait for a slot, and that wait counts
    /// against their wall clock.
    ///
    /// By default this is `1000`.
    max_concurrent_runs, get_max_concurrent_runs: usize;

    /// How many instance pools the runtime spreads its runs over. Each pool
    /// is a wasmtime engine with a pooling allocator of its own and its own
    /// copy of the compiled guest (about 11 MiB); the
    /// [`max_concurrent_runs`](Self::max_concurrent_runs) slots are divided
    /// among the pools. A thread takes its runs from one pool while that
    /// pool has room, and from another when it has none, so that on a
    /// machine running many short runs on several cores, each core reuses
    /// slots that it wrote last: with one pool shared by two cores, a
    /// `return 1 + 1` costs about a third more CPU than on one core. More
    /// pools than `max_concurrent_runs` are not made. Between 1 and 64.
    ///
    /// By default this is `None`: one pool per usable core, at most 8.
    instance_pools, get_instance_pools: Option<usize>;

    /// How many binding calls one run may have in flight at once; a call
    /// past it is rejected inside the program with an error saying so.
    ///
    /// By default this is `1024`.
    max_pending_calls, get_max_pending_calls: usize;

    /// The most bytes a recorded (or replayed, or resumed) run's ledger may
    /// hold: the JSON of every binding argument and result it keeps. A run
    /// that would record more fails as an `exception` naming this key.
    /// At least 128.
    ///
    /// By default this is `67108864` (64 MiB).
    max_record_bytes, get_max_record_bytes: usize;

    /// How long a signed continuation stays resumable (see
    /// [`continuation_key`](Self::continuation_key)).
    ///
    /// By default this is `7 days`.
    continuation_ttl, get_continuation_ttl: Duration;
}

impl RuntimeConfig {
    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// A directory where the guest's compiled machine code is kept between
    /// processes. Compiling the guest takes Cranelift a second or more, once
    /// per process and configuration; with a cache directory, a later process
    /// maps the compiled code from disk in milliseconds instead. The runtime
    /// creates the directory if needed and writes files named
    /// `coderun-guest-<key>.cwasm`, each replaced atomically. A cache that
    /// cannot be read or written is skipped (the guest is compiled as if there
    /// were none).
    ///
    /// The files are executable code that is loaded without verification:
    /// use a directory only trusted users can write to.
    ///
    /// By default this is `None` (the guest is compiled once per process).
    pub fn compile_cache_dir(&mut self, dir: Option<PathBuf>) -> &mut Self {
        self.compile_cache_dir = dir;
        self
    }

    /// The key continuations are signed with (HMAC-SHA256). With a key, a
    /// run a binding interrupts carries a signed continuation that expires
    /// after [`continuation_ttl`](Self::continuation_ttl), and `resume`
    /// refuses a continuation without a valid, unexpired signature; give
    /// every process that resumes the same key. Without one, continuations
    /// are neither signed nor checked: keep them where clients cannot
    /// change them. At least 32 bytes.
    ///
    /// By default this is `None`.
    pub fn continuation_key(&mut self, key: Option<SigningKey>) -> &mut Self {
        self.continuation_key = key;
        self
    }

    /// What programs' `fetch` may reach: origins, methods, paths, secrets,
    /// and the caps on requests (see [`NetworkPolicy`]). A request may
    /// replace it ([`CodeRunRequest::network`](crate::CodeRunRequest::network)).
    ///
    /// By default it allows nothing: `fetch` rejects with a `TypeError`
    /// saying the policy allows no network access.
    pub fn network(&mut self, policy: NetworkPolicy) -> &mut Self {
        self.network = policy;
        self
    }

    /// See [`network`](Self::network).
    pub fn get_network(&self) -> &NetworkPolicy {
        &self.network
    }

    /// See [`continuation_key`](Self::continuation_key).
    pub fn get_continuation_key(&self) -> Option<&SigningKey> {
        self.continuation_key.as_ref()
    }

    /// See [`compile_cache_dir`](Self::compile_cache_dir).
    pub fn get_compile_cache_dir(&self) -> Option<&Path> {
        self.compile_cache_dir.as_deref()
    }

    /// The instance pools a runtime built with this configuration has:
    /// [`instance_pools`](Self::instance_pools), or its default, and never
    /// more than [`max_concurrent_runs`](Self::max_concurrent_runs).
    pub(crate) fn pool_count(&self) -> usize {
        let wanted = self.instance_pools.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map_or(1, std::num::NonZero::get)
                .min(DEFAULT_MAX_INSTANCE_POOLS)
        });
        wanted.min(self.max_concurrent_runs).max(1)
    }

    /// Checks every value; the first one out of range is the error.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn fail(key: &'static str, requirement: &str, value: impl ToString) -> ConfigError {
            ConfigError {
                key,
                requirement: requirement.to_owned(),
                value: value.to_string(),
            }
        }
        if self.fuel == 0 {
            return Err(fail("fuel", "must be positive", self.fuel));
        }
        if let Err(why) = Policy::compile(&self.network) {
            return Err(fail("network", "must be a valid network policy", why));
        }
        if self.wall_clock.is_zero() || self.wall_clock > MAX_WALL_CLOCK {
            return Err(fail(
                "wall_clock",
                "must be between 1ns and 24h",
                format!("{:?}", self.wall_clock),
            ));
        }
        if !(MIN_MEMORY_BYTES..=MAX_MEMORY_BYTES).contains(&self.max_memory_bytes) {
            return Err(fail(
                "max_memory_bytes",
                &format!(
                    "must be between {MIN_MEMORY_BYTES} (9 MiB) and {MAX_MEMORY_BYTES} (4 GiB)"
                ),
                self.max_memory_bytes,
            ));
        }
        for (key, bytes) in [
            ("max_log_bytes", self.max_log_bytes),
            ("max_value_bytes", self.max_value_bytes),
            ("max_error_bytes", self.max_error_bytes),
        ] {
            if bytes < MIN_BUDGET_BYTES {
                return Err(fail(
                    key,
                    &format!(
                        "must be at least {MIN_BUDGET_BYTES} (room for the truncation marker)"
                    ),
                    bytes,
                ));
            }
        }
        if !(1..=MAX_PROGRAM_BYTES).contains(&self.max_program_bytes) {
            return Err(fail(
                "max_program_bytes",
                &format!("must be between 1 and {MAX_PROGRAM_BYTES} (64 MiB)"),
                self.max_program_bytes,
            ));
        }
        if !(1..=MAX_NESTING_DEPTH).contains(&self.max_nesting_depth) {
            return Err(fail(
                "max_nesting_depth",
                &format!("must be between 1 and {MAX_NESTING_DEPTH}"),
                self.max_nesting_depth,
            ));
        }
        if let Some(total) = self.max_total_memory_bytes
            && total < MIN_TOTAL_MEMORY_BYTES
        {
            return Err(fail(
                "max_total_memory_bytes",
                &format!("must be at least {MIN_TOTAL_MEMORY_BYTES} (9 MiB)"),
                total,
            ));
        }
        if !(1..=MAX_CONCURRENT_RUNS).contains(&self.max_concurrent_runs) {
            return Err(fail(
                "max_concurrent_runs",
                &format!("must be between 1 and {MAX_CONCURRENT_RUNS}"),
                self.max_concurrent_runs,
            ));
        }
        if let Some(pools) = self.instance_pools
            && !(1..=MAX_INSTANCE_POOLS).contains(&pools)
        {
            return Err(fail(
                "instance_pools",
                &format!("must be between 1 and {MAX_INSTANCE_POOLS}"),
                pools,
            ));
        }
        if self.max_pending_calls == 0 {
            return Err(fail(
                "max_pending_calls",
                "must be positive",
                self.max_pending_calls,
            ));
        }
        if self.max_record_bytes < MIN_BUDGET_BYTES {
            return Err(fail(
                "max_record_bytes",
                &format!("must be at least {MIN_BUDGET_BYTES}"),
                self.max_record_bytes,
            ));
        }
        if self.continuation_ttl.is_zero() {
            return Err(fail(
                "continuation_ttl",
                "must be positive",
                format!("{:?}", self.continuation_ttl),
            ));
        }
        if let Some(key) = &self.continuation_key
            && key.len() < MIN_KEY_BYTES
        {
            return Err(fail(
                "continuation_key",
                &format!("must be at least {MIN_KEY_BYTES} bytes"),
                format!("{} bytes", key.len()),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
