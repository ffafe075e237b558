//! `WasmCodeRuntime`: the wasmtime-backed `CodeRuntime`.
//!
//! # A run, end to end
//! 1. Misuse is checked (disposed runtime, invalid binding globals); a
//!    pre-aborted request ends here, before any guest exists.
//! 2. The TypeScript is transformed on the host (`transform`), or taken
//!    from the cache of recently transformed programs.
//! 3. The run waits for a slot (`max_concurrent_runs`), then gets a fresh
//!    store and instance from the shared `InstancePre`.
//! 4. The guest's `run` is driven as one future, raced against the abort
//!    signal, the runtime's dispose signal and the wall-clock deadline. The
//!    guest yields to the executor every million units of fuel (about a
//!    millisecond), or at every 1 ms epoch tick when fuel metering is off,
//!    so the race is decided promptly even while the program spins; the
//!    loser is dropped, which stops the guest for good.
//! 5. The store is read for logs and fuel, then dropped with the instance.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use futures::future::BoxFuture;
use tokio::sync::{Notify, Semaphore};
use tokio::time::Instant;
use wasmtime::Store;

use crate::CodeRuntime;
use crate::abort::{AbortController, AbortSignal};
use crate::bindings;
use crate::config::RuntimeConfig;
use crate::error::{MisuseError, RuntimeError};
use crate::failure;
use crate::guest::{CompiledGuest, Outcome, RunState, Settings};
use crate::request::CodeRunRequest;
use crate::result::{CodeRunFailure, CodeRunResult, FailureKind};
use crate::transform::{self, TransformCache, Transformed};
use crate::value;

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
    slots: Semaphore,
    active: AtomicUsize,
    idle: Notify,
    disposed: AtomicBool,
    dispose_signal: AbortController,
}

/// Counts a run as active for `dispose` while it lives.
struct ActiveRun<'a>(&'a Inner);

impl<'a> ActiveRun<'a> {
    fn enter(inner: &'a Inner) -> Self {
        inner.active.fetch_add(1, Ordering::SeqCst);
        Self(inner)
    }
}

impl Drop for ActiveRun<'_> {
    fn drop(&mut self) {
        if self.0.active.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

enum Ending {
    Finished(wasmtime::Result<Outcome>),
    Failed(CodeRunFailure),
}

impl WasmCodeRuntime {
    /// Builds a runtime: validates `config`, sets up the engine and compiles
    /// (or reuses, within this process) the guest component.
    pub fn new(config: RuntimeConfig) -> Result<Self, RuntimeError> {
        config.validate()?;
        let guest = CompiledGuest::new(&config)?;
        Ok(Self {
            inner: Arc::new(Inner {
                slots: Semaphore::new(config.get_max_concurrent_runs()),
                config,
                guest,
                transforms: TransformCache::new(),
                active: AtomicUsize::new(0),
                idle: Notify::new(),
                disposed: AtomicBool::new(false),
                dispose_signal: AbortController::new(),
            }),
        })
    }

    /// The configuration the runtime was built with.
    pub fn config(&self) -> &RuntimeConfig {
        &self.inner.config
    }

    async fn run_request(&self, request: CodeRunRequest) -> Result<CodeRunResult, MisuseError> {
        let inner = &*self.inner;
        let _active = ActiveRun::enter(inner);
        // Moved into locals so that they drop before `_active` does: once
        // `dispose` sees no active run, no run holds its bindings any more.
        let CodeRunRequest {
            program,
            bindings,
            signal,
        } = request;
        if inner.disposed.load(Ordering::SeqCst) {
            return Err(MisuseError::Disposed);
        }
        let plan = bindings::plan(&bindings)?;
        drop(bindings);
        if let Some(reason) = signal.as_ref().and_then(AbortSignal::reason) {
            return Ok(CodeRunResult::failed(failure::aborted(reason)));
        }
        let deadline = Instant::now() + inner.config.get_wall_clock();
        let transformed = match inner.transforms.transform(&program) {
            Ok(transformed) => transformed,
            Err(message) => {
                return Ok(CodeRunResult::failed(CodeRunFailure::new(
                    FailureKind::Exception,
                    message,
                )));
            }
        };

        let abort = signal;
        let stop = async {
            let dispose = inner.dispose_signal.signal();
            tokio::select! {
                reason = wait_abort(abort.as_ref()) => failure::aborted(reason),
                _ = dispose.aborted() => failure::disposed(),
                _ = tokio::time::sleep_until(deadline) => {
                    failure::wall_clock_expired(inner.config.get_wall_clock())
                }
            }
        };
        tokio::pin!(stop);

        let _slot = tokio::select! {
            slot = inner.slots.acquire() => match slot {
                Ok(slot) => slot,
                Err(_) => return Ok(CodeRunResult::failed(failure::disposed())),
            },
            failure = &mut stop => return Ok(CodeRunResult::failed(failure)),
        };

        let fuel = inner.config.get_fuel();
        let mut store = Store::new(
            &inner.guest.engine,
            RunState::new(&inner.config, plan.functions),
        );
        store.limiter(|state| &mut state.limiter);
        // A spinning guest must yield to the executor now and then, so that
        // the race below is decided promptly: a metered one every
        // `FUEL_YIELD_INTERVAL` units of fuel, an unmetered one at every
        // epoch tick.
        let metered = inner.config.get_fuel_metering();
        // Held until the run is over: the epoch advances while it runs.
        let _pacing = inner.guest.ticker.as_ref().map(|ticker| ticker.pace());
        let paced = if metered {
            store
                .fuel_async_yield_interval(Some(FUEL_YIELD_INTERVAL))
                .and_then(|()| store.set_fuel(fuel))
        } else {
            store.set_epoch_deadline(1);
            store.epoch_deadline_async_yield_and_update(1);
            Ok(())
        };
        if let Err(error) = paced {
            return Ok(CodeRunResult::failed(CodeRunFailure::new(
                FailureKind::WorkerExit,
                format!("the sandbox could not be started: {error:#}"),
            )));
        }

        let settings = Settings {
            random_seed: random_seed(),
        };
        let ending = {
            let execute = async {
                let guest = inner.guest.pre.instantiate_async(&mut store).await?;
                guest
                    .coderun_sandbox_program()
                    .call_run(&mut store, &transformed.script, &plan.namespaces, settings)
                    .await
            };
            tokio::select! {
                // An abort wins over an outcome that became ready in the
                // same poll: an aborted binding rejects, and the program's
                // reaction to that rejection is not how the run ended.
                biased;
                failure = &mut stop => Ending::Failed(failure),
                outcome = execute => Ending::Finished(outcome),
            }
        };

        let fuel_consumed = if metered {
            fuel.saturating_sub(store.get_fuel().unwrap_or(0))
        } else {
            0
        };
        let state = store.into_data();
        // Errors printed with console.error carry script positions too.
        let logs = state
            .logs
            .into_lines()
            .into_iter()
            .map(|line| {
                if line.contains(transform::SCRIPT_FILE) {
                    transformed.map_positions(&line)
                } else {
                    line
                }
            })
            .collect();
        let (value, error) = match ending {
            Ending::Failed(failure) => (None, Some(failure)),
            Ending::Finished(Err(error)) => (
                None,
                Some(failure::classify(
                    &error,
                    fuel,
                    inner.config.get_max_memory_bytes(),
                )),
            ),
            Ending::Finished(Ok(outcome)) => self.settle(outcome, &transformed),
        };
        Ok(CodeRunResult {
            value,
            logs,
            error,
            fuel_consumed,
        })
    }

    fn settle(
        &self,
        outcome: Outcome,
        transformed: &Transformed,
    ) -> (Option<serde_json::Value>, Option<CodeRunFailure>) {
        match outcome {
            Outcome::Returned(None) => (None, None),
            Outcome::Returned(Some(json)) => (
                Some(value::decode(
                    &json,
                    self.inner.config.get_max_value_bytes(),
                )),
                None,
            ),
            Outcome::Stalled => (None, Some(failure::stalled())),
            Outcome::Threw(thrown) => {
                let text = match thrown.stack {
                    Some(stack) if stack.starts_with(&thrown.message) => stack,
                    Some(stack) => format!("{}\n{}", thrown.message, stack),
                    None => thrown.message,
                };
                let text = transformed.map_positions(text.trim_end());
                (
                    None,
                    Some(CodeRunFailure::new(FailureKind::Exception, text)),
                )
            }
        }
    }

    async fn dispose_runtime(&self) {
        let inner = &*self.inner;
        inner.disposed.store(true, Ordering::SeqCst);
        inner.dispose_signal.abort("the runtime was disposed");
        inner.slots.close();
        loop {
            let idle = inner.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if inner.active.load(Ordering::SeqCst) == 0 {
                break;
            }
            idle.await;
        }
    }
}

impl CodeRuntime for WasmCodeRuntime {
    fn run(&self, request: CodeRunRequest) -> BoxFuture<'_, Result<CodeRunResult, MisuseError>> {
        Box::pin(self.run_request(request))
    }

    fn language(&self) -> &'static str {
        "typescript"
    }

    fn isolation(&self) -> &'static str {
        "wasm"
    }

    fn dispose(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.dispose_runtime())
    }
}

async fn wait_abort(signal: Option<&AbortSignal>) -> String {
    match signal {
        Some(signal) => signal.aborted().await,
        None => std::future::pending().await,
    }
}

/// A per-run seed for `Math.random`, so runs from one snapshot differ.
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(Instant::now().into_std())
}
