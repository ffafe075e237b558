//! The clocks a run reads: the host's, or a virtual pair for deterministic
//! runs. The guest reads time only through `wasi:clocks` (`Date.now()`,
//! `new Date()`, `performance.now()`, its timers), so the host decides what
//! time it is. A virtual clock starts at the request's epoch and advances
//! only when the program has nothing to do but wait for a timer: then the
//! host moves it to the timer's due time at once, without waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use wasmtime_wasi::clocks::{HostMonotonicClock, HostWallClock};

/// Which clock a run reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum Clock {
    /// The host's wall and monotonic clocks; timers wait in real time
    /// (within the wall-clock budget).
    #[default]
    Real,
    /// A virtual clock starting at `epoch_ms` (milliseconds since the Unix
    /// epoch). It advances only when the program waits on a timer, and then
    /// at once: timers fire in order without real waiting. Binding calls
    /// settle in the order they were started.
    Virtual {
        /// Where `Date.now()` starts.
        epoch_ms: u64,
    },
}

/// The clock of one run, shared by the store's WASI clocks and the binding
/// calls' wait.
#[derive(Clone)]
pub(crate) enum RunClock {
    Real,
    Virtual(VirtualClock),
}

impl RunClock {
    pub(crate) fn new(clock: Clock) -> Self {
        match clock {
            Clock::Real => RunClock::Real,
            Clock::Virtual { epoch_ms } => RunClock::Virtual(VirtualClock {
                epoch: Duration::from_millis(epoch_ms),
                elapsed_nanos: Arc::new(AtomicU64::new(0)),
            }),
        }
    }

    /// Whether binding calls settle in start order and timers never wait.
    pub(crate) fn is_virtual(&self) -> bool {
        matches!(self, RunClock::Virtual(_))
    }

    /// Waits `ms` milliseconds: really, or by advancing the virtual clock.
    pub(crate) async fn wait(&self, ms: u64) {
        match self {
            RunClock::Real => tokio::time::sleep(Duration::from_millis(ms)).await,
            RunClock::Virtual(clock) => clock.advance(ms),
        }
    }
}

/// A virtual wall clock and monotonic clock that move together.
#[derive(Clone)]
pub(crate) struct VirtualClock {
    epoch: Duration,
    elapsed_nanos: Arc<AtomicU64>,
}

impl VirtualClock {
    fn elapsed(&self) -> u64 {
        self.elapsed_nanos.load(Ordering::Acquire)
    }

    fn advance(&self, ms: u64) {
        let nanos = ms.saturating_mul(1_000_000);
        // Only the run's own store reads or moves it; saturating keeps a
        // hostile sequence of waits from wrapping.
        let _ = self
            .elapsed_nanos
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |elapsed| {
                Some(elapsed.saturating_add(nanos))
            });
    }

    /// The WASI wall clock of this virtual time.
    pub(crate) fn wall(&self) -> impl HostWallClock + 'static {
        VirtualWall(self.clone())
    }

    /// The WASI monotonic clock of this virtual time.
    pub(crate) fn monotonic(&self) -> impl HostMonotonicClock + 'static {
        VirtualMonotonic(self.clone())
    }
}

struct VirtualWall(VirtualClock);

impl HostWallClock for VirtualWall {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }

    fn now(&self) -> Duration {
        self.0.epoch + Duration::from_nanos(self.0.elapsed())
    }
}

struct VirtualMonotonic(VirtualClock);

impl HostMonotonicClock for VirtualMonotonic {
    fn resolution(&self) -> u64 {
        1
    }

    fn now(&self) -> u64 {
        self.0.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_virtual_clock_moves_only_when_waited_on_and_at_once() {
        let clock = RunClock::new(Clock::Virtual { epoch_ms: 1_000 });
        let RunClock::Virtual(virtual_clock) = &clock else {
            unreachable!("a virtual clock was asked for")
        };
        let (wall, monotonic) = (virtual_clock.wall(), virtual_clock.monotonic());
        assert_eq!(wall.now(), Duration::from_secs(1));
        assert_eq!(monotonic.now(), 0);
        let started = std::time::Instant::now();
        clock.wait(60_000).await;
        assert!(started.elapsed() < Duration::from_secs(30));
        assert_eq!(wall.now(), Duration::from_secs(61));
        assert_eq!(monotonic.now(), 60_000_000_000);
        clock.wait(u64::MAX).await;
        assert_eq!(monotonic.now(), u64::MAX);
    }
}
