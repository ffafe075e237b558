//! The runtime's budgets and limits: the one place they are defaulted and
//! validated. A request carries none of them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::ConfigError;

const MIB: u64 = 1024 * 1024;
/// The smallest memory cap the guest can start in: its snapshot alone takes
/// a few MiB (the 1 MiB shadow stack, QuickJS's heap).
const MIN_MEMORY_BYTES: u64 = 8 * MIB;
/// wasm32's address space.
const MAX_MEMORY_BYTES: u64 = 4 * 1024 * MIB;
const MAX_WALL_CLOCK: Duration = Duration::from_secs(24 * 60 * 60);
const MAX_CONCURRENT_RUNS: usize = 10_000;

/// Configuration of a [`WasmCodeRuntime`](crate::WasmCodeRuntime).
///
/// Setters return `&mut Self` for chaining; the values are validated when the
/// runtime is built, and an invalid one fails construction with a
/// [`ConfigError`] naming the key and the value.
///
/// ```
/// use std::time::Duration;
/// use runtime_host::RuntimeConfig;
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
    max_concurrent_runs: usize,
    max_pending_calls: usize,
    compile_cache_dir: Option<PathBuf>,
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
            max_concurrent_runs: 1000,
            max_pending_calls: 1024,
            compile_cache_dir: None,
        }
    }
}

impl RuntimeConfig {
    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// The fuel budget of one run: wasm instructions the guest may execute
    /// (roughly; wasmtime charges about one unit per instruction). Fuel is
    /// deterministic: the same program with the same budget stops at the same
    /// point every time. Time spent awaiting bindings burns none. A run that
    /// exhausts it ends as a `timeout` naming the fuel budget.
    ///
    /// By default this is `5_000_000_000` (a few seconds of JavaScript).
    pub fn fuel(&mut self, fuel: u64) -> &mut Self {
        self.fuel = fuel;
        self
    }

    /// Whether the fuel budget is enforced. With metering off,
    /// [`fuel`](Self::fuel) is ignored, `CodeRunResult::fuel_consumed` is
    /// always 0, and only the wall clock (and abort) ends a run that never
    /// does. The guest is then compiled without fuel checks and made to
    /// yield by epoch interruption instead (a thread advances the epoch
    /// every millisecond while one of the runtime's runs is active, and
    /// is parked while none is). Epoch checks cost about what fuel checks
    /// do (11–19 % over no checks at all; `benches/OPTIMISATIONS.md`), so
    /// turning metering off is for hosts that want only a wall-clock
    /// budget, not a large speed-up.
    ///
    /// By default this is `true`.
    pub fn fuel_metering(&mut self, enabled: bool) -> &mut Self {
        self.fuel_metering = enabled;
        self
    }

    /// The wall-clock budget of one run, from submission to settlement,
    /// including time spent waiting for a free instance slot and awaiting
    /// bindings. A run that exceeds it ends as a `timeout` naming the
    /// wall-clock budget.
    ///
    /// By default this is `30s`.
    pub fn wall_clock(&mut self, wall_clock: Duration) -> &mut Self {
        self.wall_clock = wall_clock;
        self
    }

    /// The cap on the guest's linear memory, in bytes (rounded up to whole
    /// 64 KiB wasm pages). A run whose guest tries to grow past it ends as
    /// `worker-exit` naming the cap, even if the program catches QuickJS's
    /// out-of-memory error. Must be between 8 MiB and 4 GiB.
    ///
    /// By default this is `134217728` (128 MiB).
    pub fn max_memory_bytes(&mut self, bytes: u64) -> &mut Self {
        self.max_memory_bytes = bytes;
        self
    }

    /// The cap on the total bytes of console output kept per run (each line
    /// counts its UTF-8 length plus one). Output past it is dropped after a
    /// single in-band marker line.
    ///
    /// By default this is `1048576` (1 MiB).
    pub fn max_log_bytes(&mut self, bytes: usize) -> &mut Self {
        self.max_log_bytes = bytes;
        self
    }

    /// The cap on the returned value's size, in bytes of JSON. A larger value
    /// comes back as a string cut at a UTF-8 boundary, followed by a marker.
    ///
    /// By default this is `1048576` (1 MiB).
    pub fn max_value_bytes(&mut self, bytes: usize) -> &mut Self {
        self.max_value_bytes = bytes;
        self
    }

    /// How many runs may execute at once; each holds one slot of the pooling
    /// allocator, which reserves (but does not commit) address space for all
    /// of them up front. Further runs wait for a slot, and that wait counts
    /// against their wall clock.
    ///
    /// By default this is `1000`.
    pub fn max_concurrent_runs(&mut self, runs: usize) -> &mut Self {
        self.max_concurrent_runs = runs;
        self
    }

    /// How many binding calls one run may have in flight at once; a call
    /// past it is rejected inside the program with an error saying so.
    ///
    /// By default this is `1024`.
    pub fn max_pending_calls(&mut self, calls: usize) -> &mut Self {
        self.max_pending_calls = calls;
        self
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

    /// See [`fuel`](Self::fuel).
    pub fn get_fuel(&self) -> u64 {
        self.fuel
    }

    /// See [`fuel_metering`](Self::fuel_metering).
    pub fn get_fuel_metering(&self) -> bool {
        self.fuel_metering
    }

    /// See [`wall_clock`](Self::wall_clock).
    pub fn get_wall_clock(&self) -> Duration {
        self.wall_clock
    }

    /// See [`max_memory_bytes`](Self::max_memory_bytes).
    pub fn get_max_memory_bytes(&self) -> u64 {
        self.max_memory_bytes
    }

    /// See [`max_log_bytes`](Self::max_log_bytes).
    pub fn get_max_log_bytes(&self) -> usize {
        self.max_log_bytes
    }

    /// See [`max_value_bytes`](Self::max_value_bytes).
    pub fn get_max_value_bytes(&self) -> usize {
        self.max_value_bytes
    }

    /// See [`max_concurrent_runs`](Self::max_concurrent_runs).
    pub fn get_max_concurrent_runs(&self) -> usize {
        self.max_concurrent_runs
    }

    /// See [`max_pending_calls`](Self::max_pending_calls).
    pub fn get_max_pending_calls(&self) -> usize {
        self.max_pending_calls
    }

    /// See [`compile_cache_dir`](Self::compile_cache_dir).
    pub fn get_compile_cache_dir(&self) -> Option<&Path> {
        self.compile_cache_dir.as_deref()
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
                    "must be between {MIN_MEMORY_BYTES} (8 MiB) and {MAX_MEMORY_BYTES} (4 GiB)"
                ),
                self.max_memory_bytes,
            ));
        }
        if self.max_log_bytes == 0 {
            return Err(fail(
                "max_log_bytes",
                "must be positive",
                self.max_log_bytes,
            ));
        }
        if self.max_value_bytes == 0 {
            return Err(fail(
                "max_value_bytes",
                "must be positive",
                self.max_value_bytes,
            ));
        }
        if !(1..=MAX_CONCURRENT_RUNS).contains(&self.max_concurrent_runs) {
            return Err(fail(
                "max_concurrent_runs",
                &format!("must be between 1 and {MAX_CONCURRENT_RUNS}"),
                self.max_concurrent_runs,
            ));
        }
        if self.max_pending_calls == 0 {
            return Err(fail(
                "max_pending_calls",
                "must be positive",
                self.max_pending_calls,
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(RuntimeConfig::default().validate(), Ok(()));
    }

    #[test]
    fn zero_fuel_names_key_and_value() {
        let err = RuntimeConfig::new().fuel(0).validate().unwrap_err();
        assert_eq!(err.to_string(), "config.fuel must be positive (got 0)");
    }

    #[test]
    fn zero_memory_names_key_and_value() {
        let err = RuntimeConfig::new()
            .max_memory_bytes(0)
            .validate()
            .unwrap_err();
        assert_eq!(err.key(), "max_memory_bytes");
        assert!(err.to_string().ends_with("(got 0)"), "{err}");
    }
}
