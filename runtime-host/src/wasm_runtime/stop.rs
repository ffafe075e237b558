//! A run's stop (its abort signal, the runtime's dispose, its wall clock),
//! checked or listened for; and dispose, which fires it for every run and
//! waits for them to end.

use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::time::Instant;

use super::{Inner, WasmCodeRuntime};
use crate::abort::AbortSignal;
use crate::failure::{self, CodeRunFailure};

/// Counts a run as active for `dispose` while it lives, in the shard it
/// started on (its task may end on another thread).
pub(super) struct ActiveRun<'a> {
    inner: &'a Inner,
    count: &'a AtomicUsize,
}

impl<'a> ActiveRun<'a> {
    pub(super) fn enter(inner: &'a Inner) -> Self {
        let count = inner.active.local();
        count.fetch_add(1, Ordering::SeqCst);
        Self { inner, count }
    }
}

impl Drop for ActiveRun<'_> {
    fn drop(&mut self) {
        if self.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.inner.idle.notify_waiters();
        }
    }
}

impl WasmCodeRuntime {
    /// Refuses new runs, fires every shard's dispose signal, and waits
    /// until no run is active in any shard.
    pub(super) async fn dispose_runtime(&self) {
        let inner = &*self.inner;
        inner.disposed.store(true, Ordering::SeqCst);
        for signal in inner.dispose_signal.iter() {
            signal.abort("the runtime was disposed");
        }
        inner.slots.close();
        loop {
            let idle = inner.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            let active: usize = inner
                .active
                .iter()
                .map(|count| count.load(Ordering::SeqCst))
                .sum();
            if active == 0 {
                break;
            }
            idle.await;
        }
    }
}

/// What a run's stop (its abort signal, the runtime's dispose, its wall
/// clock) ends it with if it has fired, checked without listening for it.
/// Listening registers the run with tokio's timer driver, which all cores
/// share behind one lock, and with the dispose signal: a `return 1 + 1` on
/// two cores spent about 3 % of its time there. A run that has to wait
/// listens (`stop`).
pub(super) fn stopped_now(
    abort: Option<&AbortSignal>,
    inner: &Inner,
    deadline: Instant,
) -> Option<CodeRunFailure> {
    if let Some(reason) = abort.and_then(AbortSignal::reason) {
        return Some(failure::aborted(reason));
    }
    if inner.disposed.load(Ordering::SeqCst) {
        return Some(failure::disposed());
    }
    (Instant::now() >= deadline).then(|| failure::wall_clock_expired(inner.config.get_wall_clock()))
}

pub(super) async fn wait_abort(signal: Option<&AbortSignal>) -> String {
    match signal {
        Some(signal) => signal.aborted().await,
        None => std::future::pending().await,
    }
}
