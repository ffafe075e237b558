//! `WasmCodeRuntime`: the wasmtime-backed `CodeRuntime`.
//!
//! # A run, end to end
//! 1. Misuse is checked (disposed runtime, invalid binding globals); a
//!    pre-aborted request ends here, before any guest exists.
//! 2. The TypeScript is transformed on the host (`transform`), or taken
//!    from the cache of recently transformed programs. From here on the
//!    run races its stop: its abort signal, the runtime's dispose signal
//!    and its wall-clock deadline. A long program is transformed on a
//!    blocking thread, so that the deadline can end the run while oxc
//!    works. A step that need not wait checks the stop instead of
//!    listening for it (`stopped_now`): a short run that never waits never
//!    registers with tokio's timer driver, which every core shares.
//! 3. The run waits for a slot (`max_concurrent_runs`) and for the memory
//!    its guest starts with to fit the runtime's budget
//!    (`max_total_memory_bytes`), then gets a fresh store and instance from
//!    the `InstancePre` of one of the runtime's instance pools (the one its
//!    thread takes runs from, if it has room: `engine::CompiledGuest::claim`).
//! 4. The guest's `run` is driven as one future. Its first stretch runs once
//!    the stop is checked; from its first wait on, it is raced against the
//!    stop. The guest yields to the executor every million units of fuel
//!    (about a millisecond), or at every 1 ms epoch tick when fuel metering
//!    is off, so the race is decided promptly even while the program spins;
//!    the loser is dropped, which stops the guest for good.
//! 5. The store is read for logs and fuel, then dropped with the instance.
//!    The failure message, whatever produced it, is capped here
//!    (`max_error_bytes`), as the logs were by their ledger and the value by
//!    its decoder.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;

use futures::future::BoxFuture;
use tokio::sync::{Notify, Semaphore, TryAcquireError};
use tokio::time::Instant;
use wasmtime::Store;

use crate::abort::{AbortController, AbortSignal};
use crate::bindings;
use crate::clock::RunClock;
use crate::config::RuntimeConfig;
use crate::durable::{Interruption, Session};
use crate::egress::{Policy, RunEgress};
use crate::engine::CompiledGuest;
use crate::error::{ConfigError, MisuseError, RuntimeError};
use crate::failure::{self, CodeRunFailure};
use crate::guest::{Outcome, Settings};
use crate::memory::{self, MemoryBudget};
use crate::output::{self, Output};
use crate::request::CodeRunRequest;
use crate::result::CodeRunResult;
use crate::shards::Sharded;
use crate::store::RunState;
use crate::transform::{
    self, FrontEndLimits, MAX_CACHED_SOURCE_BYTES, TransformCache, Transformed,
};
use crate::value;
use crate::{CodeRuntime, Language};

mod preamble;
mod stop;

use stop::{ActiveRun, stopped_now, wait_abort};

/// Fuel a metered guest burns between two yields to the executor: about a
/// millisecond of JavaScript. Metered guests yield on fuel rather than also
/// checking epochs: the two checks together cost more than fuel alone.
const FUEL_YIELD_INTERVAL: u64 = 1_000_000;

/// A [`CodeRuntime`] that runs each program in a fresh QuickJS instance
/// inside wasmtime.
///
/// Cloning is cheap and shares the runtime. Runs need a tokio runtime: the
/// guest executes on the task that polls [`run`](CodeRuntime::run), and
/// binding calls are spawned onto the ambient runtime.
#[derive(Clone)]
pub struct WasmCodeRuntime {
    inner: Arc<Inner>,
}

struct Inner {
    config: RuntimeConfig,
    guest: CompiledGuest,
    transforms: TransformCache,
    memory: Arc<MemoryBudget>,
    /// The linear memory a fresh guest starts with: what admission waits for.
    initial_memory: u64,
    /// Preambles compiled to bytecode, by their text: each is compiled once,
    /// in an instance of its own, so no run pays for it or burns fuel on it.
    preambles: Sharded<Mutex<HashMap<String, Arc<[u8]>>>>,
    slots: Semaphore,
    /// Runs in `execute`, counted in the shard of the thread each started on
    /// (`shards.rs`), as the dispose signal is listened to.
    active: Sharded<AtomicUsize>,
    idle: Notify,
    disposed: AtomicBool,
    dispose_signal: Sharded<AbortController>,
    /// `config.network`, compiled (once per shard, so that each has a
    /// reference count of its own).
    network: Sharded<Arc<Policy>>,
}

enum Ending {
    Finished(wasmtime::Result<Outcome>),
    Failed(CodeRunFailure),
}

/// The longest time zone name handed to the guest, which knows none longer
/// than 256 bytes.
const MAX_TIME_ZONE_BYTES: usize = 300;

impl WasmCodeRuntime {
    /// Builds a runtime: validates `config`, sets up the engine and compiles
    /// (or reuses, within this process) the guest component.
    pub fn new(config: RuntimeConfig) -> Result<Self, RuntimeError> {
        config.validate()?;
        let shards = config.pool_count();
        let network = Sharded::try_new(shards, || {
            Policy::compile(config.get_network()).map(Arc::new)
        })
        .map_err(|why| ConfigError {
            key: "network",
            requirement: "must be a valid network policy".into(),
            value: why,
        })?;
        let guest = CompiledGuest::new(&config)?;
        let initial_memory = guest.initial_memory(&config)?;
        let budget = config
            .get_max_total_memory_bytes()
            .unwrap_or_else(memory::default_budget);
        let limits = FrontEndLimits {
            max_program_bytes: config.get_max_program_bytes(),
            max_nesting_depth: config.get_max_nesting_depth(),
        };
        Ok(Self {
            inner: Arc::new(Inner {
                slots: Semaphore::new(config.get_max_concurrent_runs()),
                config,
                guest,
                transforms: TransformCache::new(limits, shards),
                memory: Arc::new(MemoryBudget::new(budget)),
                initial_memory,
                preambles: Sharded::new(shards, || Mutex::new(HashMap::new())),
                active: Sharded::new(shards, || AtomicUsize::new(0)),
                idle: Notify::new(),
                disposed: AtomicBool::new(false),
                dispose_signal: Sharded::new(shards, AbortController::new),
                network,
            }),
        })
    }

    /// The configuration the runtime was built with.
    pub fn config(&self) -> &RuntimeConfig {
        &self.inner.config
    }

    /// How many instance pools the runtime spreads its runs over: the
    /// configured [`instance_pools`](RuntimeConfig::instance_pools), or its
    /// default, never more than `max_concurrent_runs`.
    pub fn instance_pools(&self) -> usize {
        self.inner.guest.pool_count()
    }

    /// The linear memory all concurrent runs may hold together, in bytes:
    /// `config.max_total_memory_bytes`, or the default derived from the
    /// machine when that is `None`.
    pub fn total_memory_budget(&self) -> u64 {
        self.inner.memory.limit()
    }

    /// The linear memory the runtime's runs hold now, in bytes, counted
    /// against [`total_memory_budget`](Self::total_memory_budget).
    pub fn memory_in_use(&self) -> u64 {
        self.inner.memory.usage().now
    }

    /// The most linear memory the runtime's runs ever held at once, in bytes.
    pub fn peak_memory_in_use(&self) -> u64 {
        self.inner.memory.usage().peak
    }

    async fn run_request(&self, request: CodeRunRequest) -> Result<CodeRunResult, MisuseError> {
        let max_error_bytes = self.inner.config.get_max_error_bytes();
        let mut result = self.execute(request).await?;
        if let Some(error) = &mut result.error {
            error.message = output::cap(
                std::mem::take(&mut error.message),
                Output::Error,
                max_error_bytes,
            );
        }
        Ok(result)
    }

    async fn execute(&self, request: CodeRunRequest) -> Result<CodeRunResult, MisuseError> {
        let inner = &*self.inner;
        let _active = ActiveRun::enter(inner);
        // Moved into locals so that they drop before `_active` does: once
        // `dispose` sees no active run, no run holds its bindings any more.
        let CodeRunRequest {
            program,
            mut bindings,
            signal,
            seed,
            clock,
            record,
            preamble,
            time_zone,
            network,
            durable,
        } = request;
        if inner.disposed.load(Ordering::SeqCst) {
            return Err(MisuseError::Disposed);
        }
        if let Some(at) = preamble
            .as_deref()
            .and_then(|text| text.find(['\n', '\r', '\u{2028}', '\u{2029}']))
        {
            return Err(MisuseError::PreambleNotOneLine { at });
        }
        let mut session = Session::new(
            &inner.config,
            durable,
            (seed, clock, record, time_zone),
            &program,
            &mut bindings,
        )?;
        let network = match network {
            None => inner.network.local().clone(),
            Some(policy) => {
                Arc::new(Policy::compile(&policy).map_err(MisuseError::InvalidNetworkPolicy)?)
            }
        };
        let plan = bindings::plan(&bindings)?;
        drop(bindings);
        if let Some(reason) = signal.as_ref().and_then(AbortSignal::reason) {
            return Ok(CodeRunResult::failed(failure::aborted(reason)));
        }
        let deadline = Instant::now() + inner.config.get_wall_clock();
        let abort = signal;
        let stop = async {
            let dispose = inner.dispose_signal.local().signal();
            tokio::select! {
                reason = wait_abort(abort.as_ref()) => failure::aborted(reason),
                _ = dispose.aborted() => failure::disposed(),
                _ = tokio::time::sleep_until(deadline) => {
                    failure::wall_clock_expired(inner.config.get_wall_clock())
                }
            }
        };
        tokio::pin!(stop);

        let transformed = if program.len() <= MAX_CACHED_SOURCE_BYTES {
            inner.transforms.transform(&program)
        } else {
            // Long programs take oxc milliseconds: off the executor, and
            // inside the wall clock.
            let limits = inner.transforms.limits();
            let source = program.clone();
            let front_end = tokio::task::spawn_blocking(move || {
                transform::transform(&source, &limits).map(Arc::new)
            });
            tokio::select! {
                transformed = front_end => match transformed {
                    Ok(transformed) => transformed,
                    Err(_) => return Ok(CodeRunResult::failed(failure::front_end_stopped())),
                },
                failure = &mut stop => return Ok(CodeRunResult::failed(failure)),
            }
        };
        let transformed = match transformed {
            Ok(transformed) => transformed,
            Err(message) => return Ok(CodeRunResult::failed(failure::exception(message))),
        };

        // Each step that can wait tries first, and listens for the stop only
        // if it has to wait (see `stopped_now`).
        let _slot = match inner.slots.try_acquire() {
            Ok(slot) => slot,
            Err(TryAcquireError::Closed) => return Ok(CodeRunResult::failed(failure::disposed())),
            Err(TryAcquireError::NoPermits) => tokio::select! {
                slot = inner.slots.acquire() => match slot {
                    Ok(slot) => slot,
                    Err(_) => return Ok(CodeRunResult::failed(failure::disposed())),
                },
                failure = &mut stop => return Ok(CodeRunResult::failed(failure)),
            },
        };
        let admission = match inner.memory.try_admit(inner.initial_memory) {
            Some(admission) => admission,
            None => tokio::select! {
                admission = inner.memory.admit(inner.initial_memory) => admission,
                failure = &mut stop => return Ok(CodeRunResult::failed(failure)),
            },
        };
        // Held inside the permit: the pools' slots add up to the permits.
        let pool = inner.guest.claim();
        // Compiled holding the run's slot, so that a cold preamble never
        // waits for one, and before the run's store takes it.
        let preamble = match preamble {
            None => None,
            Some(text) => {
                let compiled = match self.cached_preamble(&text) {
                    Some(bytecode) => Ok(bytecode),
                    None => tokio::select! {
                        compiled = self.compiled_preamble(&text, &pool) => compiled,
                        failure = &mut stop => return Ok(CodeRunResult::failed(failure)),
                    },
                };
                match compiled {
                    Ok(bytecode) => Some(bytecode),
                    Err(failure) => return Ok(CodeRunResult::failed(failure)),
                }
            }
        };
        let limiter =
            admission.into_limiter(inner.memory.clone(), inner.config.get_max_memory_bytes());

        let fuel = inner.config.get_fuel();
        let ledger = session.ledger(inner.config.get_max_record_bytes());
        let mut store = Store::new(
            &pool.engine,
            RunState::new(
                &inner.config,
                limiter,
                (Arc::clone(&plan.namespaces), plan.functions),
                (ledger, RunClock::new(session.clock), session.seed),
                RunEgress::new(network),
            )
            .with_positions(transformed.clone()),
        );
        store.limiter(|state| &mut state.limiter);
        let metered = inner.config.get_fuel_metering();
        // Held until the run is over: the epoch advances while it runs.
        let _pacing = inner.guest.ticker.as_ref().map(|ticker| ticker.pace());
        if let Err(error) = pace(&mut store, metered, fuel) {
            return Ok(CodeRunResult::failed(failure::sandbox_not_started(&error)));
        }

        let settings = Settings {
            random_seed: session.seed,
            script_name: transform::SCRIPT_FILE.to_owned(),
            max_value_chars: u32::try_from(inner.config.get_max_value_bytes()).unwrap_or(u32::MAX),
            preamble: preamble.map(|bytecode| bytecode.to_vec()),
            // No zone name is longer: a longer one (from a hostile record)
            // crosses cut, and the guest refuses it by its first bytes.
            time_zone: session
                .time_zone
                .as_deref()
                .map(|zone| output::truncate_utf8(zone, MAX_TIME_ZONE_BYTES).to_owned()),
        };
        let ending = {
            let execute = async {
                let guest = pool.pre.instantiate_async(&mut store).await?;
                guest
                    .coderun_sandbox_program()
                    .call_run(&mut store, &transformed.script, &plan.namespaces, &settings)
                    .await
            };
            tokio::pin!(execute);
            // The guest's first stretch, up to its first wait (a binding
            // call, a timer, a yield on fuel), runs before the stop is
            // listened for: a run that never waits never listens. The stop
            // is checked first, as the race below polls it first.
            let first = match stopped_now(abort.as_ref(), inner, deadline) {
                Some(failure) => Some(Ending::Failed(failure)),
                None => {
                    match std::future::poll_fn(|cx| Poll::Ready(execute.as_mut().poll(cx))).await {
                        Poll::Ready(outcome) => Some(Ending::Finished(outcome)),
                        Poll::Pending => None,
                    }
                }
            };
            match first {
                Some(ending) => ending,
                None => tokio::select! {
                    // An abort wins over an outcome that became ready in the
                    // same poll: an aborted binding rejects, and the
                    // program's reaction to that rejection is not how the
                    // run ended.
                    biased;
                    failure = &mut stop => Ending::Failed(failure),
                    outcome = &mut execute => Ending::Finished(outcome),
                },
            }
        };

        let fuel_consumed = if metered {
            fuel.saturating_sub(store.get_fuel().unwrap_or(0))
        } else {
            0
        };
        let state = store.into_data();
        let made = state.calls.made();
        let ledger = state.calls.into_ledger();
        let mut interruption = None;
        let mut result = match ending {
            Ending::Failed(failure) => CodeRunResult::failed(failure),
            Ending::Finished(Err(error)) => match error.downcast::<Interruption>() {
                Ok(interrupted) => {
                    interruption = Some(interrupted);
                    CodeRunResult::default()
                }
                Err(error) => CodeRunResult::failed(failure::classify(
                    &error,
                    fuel,
                    inner.config.get_max_memory_bytes(),
                )),
            },
            Ending::Finished(Ok(outcome)) => match ledger.finish(made) {
                Ok(()) => self.settle(outcome, &transformed),
                Err(divergence) => CodeRunResult::failed(failure::diverged(&divergence)),
            },
        };
        let (record, interrupted) = session.finish(
            &inner.config,
            program,
            || bindings::recorded(&plan.namespaces),
            ledger,
            interruption,
        );
        result.record = record.map(Box::new);
        result.interrupted = interrupted.map(Box::new);
        result.logs = state.logs.into_lines();
        result.fuel_consumed = fuel_consumed;
        result.peak_memory_bytes = state.limiter.peak_bytes();
        Ok(result)
    }

    /// The result of a guest that ran to an outcome (logs and fuel aside).
    fn settle(&self, outcome: Outcome, transformed: &Transformed) -> CodeRunResult {
        let max_value_bytes = self.inner.config.get_max_value_bytes();
        match outcome {
            Outcome::Returned(returned) => CodeRunResult {
                value: returned
                    .as_ref()
                    .map(|returned| value::decode(&returned.json, max_value_bytes)),
                value_display: returned
                    .map(|returned| output::cap(returned.display, Output::Value, max_value_bytes)),
                ..CodeRunResult::default()
            },
            Outcome::ReturnedTape(tape) => match value::from_tape(&tape, max_value_bytes) {
                Ok((json, display)) => CodeRunResult {
                    value: Some(value::decode(&json, max_value_bytes)),
                    value_display: Some(output::cap(display, Output::Value, max_value_bytes)),
                    ..CodeRunResult::default()
                },
                Err(message) => CodeRunResult::failed(failure::exception(message)),
            },
            Outcome::Stalled => CodeRunResult::failed(failure::stalled()),
            Outcome::Threw(text) => CodeRunResult::failed(failure::exception(
                transformed.map_positions(text.trim_end()),
            )),
        }
    }
}

impl CodeRuntime for WasmCodeRuntime {
    fn run(&self, request: CodeRunRequest) -> BoxFuture<'_, Result<CodeRunResult, MisuseError>> {
        Box::pin(self.run_request(request))
    }

    fn language(&self) -> Language {
        Language::TYPESCRIPT
    }

    fn isolation(&self) -> &'static str {
        "wasm"
    }

    fn dispose(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.dispose_runtime())
    }
}

/// Makes a spinning guest yield to the executor now and then, so that a
/// race with the abort signal and the wall clock is decided promptly: a
/// metered one every `FUEL_YIELD_INTERVAL` units of its `fuel`, an
/// unmetered one at every epoch tick.
fn pace(store: &mut Store<RunState>, metered: bool, fuel: u64) -> wasmtime::Result<()> {
    if metered {
        store.fuel_async_yield_interval(Some(FUEL_YIELD_INTERVAL))?;
        store.set_fuel(fuel)
    } else {
        store.set_epoch_deadline(1);
        store.epoch_deadline_async_yield_and_update(1);
        Ok(())
    }
}
