//! The epoch ticker of unmetered runtimes: a guest compiled without fuel
//! checks yields to the executor at every epoch tick, so that abort and the
//! wall clock can stop it; the ticker runs only while a run needs it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use wasmtime::Engine;

/// How often an unmetered guest is interrupted to yield to the executor.
const EPOCH_TICK: std::time::Duration = std::time::Duration::from_millis(1);

/// Advances the epoch of a runtime's engines (one per instance pool) every
/// [`EPOCH_TICK`], on a thread of its own, while at least one of the
/// runtime's runs is active; parked while none is, so an idle runtime costs
/// no wake-ups. Stopped when dropped.
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
    pub(crate) fn start(engines: &[Engine]) -> std::io::Result<Self> {
        let shared = Arc::new(TickerShared {
            active: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
        });
        let state = shared.clone();
        let engines: Vec<_> = engines.iter().map(Engine::weak).collect();
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
                    for engine in &engines {
                        let Some(engine) = engine.upgrade() else {
                            return;
                        };
                        engine.increment_epoch();
                    }
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
