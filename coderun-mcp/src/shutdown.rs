//! When `coderun mcp` stops, and how long stopping may take.
//!
//! SIGINT, SIGTERM, the end of stdin and a closed stdout each request
//! shutdown. From that moment every step of stopping (aborting the programs
//! in flight, stopping the upstreams, letting rmcp send the answers it has)
//! waits at most until one [`deadline`](Shutdown::deadline), so the process
//! exits within a second whatever is running.
//!
//! With a drain ([`drain_for`](Shutdown::drain_for), `--drain-seconds`),
//! SIGTERM first *drains*: the replica stops being ready, refuses new
//! calls with an error saying to retry them, and lets the calls in flight
//! finish for up to the drain's length; then it shuts down as above,
//! aborting what still runs. A second SIGTERM, or SIGINT, shuts down at
//! once.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long after shutdown is requested the server may still take to send
/// what it has and stop its upstreams; the process exits soon after.
pub const SHUTDOWN_BUDGET: Duration = Duration::from_millis(700);

/// How long a drain that saw its last call end waits for that call's
/// answer to be written.
const DRAIN_FLUSH: Duration = Duration::from_millis(250);

/// Why the server stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// The client closed stdin.
    StdinClosed,
    /// The client closed stdout.
    StdoutClosed,
    /// The server stopped on its own (an error, or the HTTP server ended).
    Stopped,
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reason::Interrupt => "SIGINT",
            Reason::Terminate => "SIGTERM",
            Reason::StdinClosed => "stdin was closed",
            Reason::StdoutClosed => "stdout was closed",
            Reason::Stopped => "the server stopped",
        })
    }
}

/// The shutdown request of one `coderun mcp` process; clones share it.
#[derive(Debug, Clone, Default)]
pub struct Shutdown {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Cancelled when SIGTERM starts a drain.
    draining: CancellationToken,
    /// Cancelled when a drain ends with calls still in flight: they abort.
    drain_over: CancellationToken,
    /// How long a drain may last; zero: none.
    drain: Mutex<Duration>,
    requested: CancellationToken,
    stdin_closed: CancellationToken,
    since: Mutex<Option<(Reason, Instant)>>,
}

impl Shutdown {
    /// A shutdown not yet requested.
    pub fn new() -> Self {
        Self::default()
    }

    /// Requests shutdown on SIGINT and SIGTERM. Call from within the
    /// runtime; fails if the handlers cannot be installed.
    pub fn on_signals(&self) -> std::io::Result<()> {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        let shutdown = self.clone();
        tokio::spawn(async move {
            loop {
                let reason = tokio::select! {
                    _ = interrupt.recv() => Reason::Interrupt,
                    _ = terminate.recv() => Reason::Terminate,
                };
                if reason == Reason::Terminate && shutdown.begin_drain() {
                    continue;
                }
                shutdown.trigger(reason);
                return;
            }
        });
        Ok(())
    }

    /// Lets SIGTERM drain for up to `drain` before shutting down (zero, the
    /// default: no drain).
    pub fn drain_for(&self, drain: Duration) {
        *self
            .inner
            .drain
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = drain;
    }

    /// A token cancelled when a drain ends with calls still in flight,
    /// which then abort (and answer) before the shutdown.
    pub fn drain_over(&self) -> CancellationToken {
        self.inner.drain_over.clone()
    }

    /// Whether the replica is draining or shutting down: it takes no new
    /// calls.
    pub fn is_draining(&self) -> bool {
        self.inner.draining.is_cancelled() || self.inner.requested.is_cancelled()
    }

    /// Starts draining, if a drain is configured and none started: true
    /// then. Shutdown follows once no call is in flight, or when the drain
    /// ends.
    fn begin_drain(&self) -> bool {
        let drain = *self
            .inner
            .drain
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if drain.is_zero() || self.inner.draining.is_cancelled() {
            return false;
        }
        tracing::info!("draining: SIGTERM; new calls are refused, those in flight have {drain:?}");
        self.inner.draining.cancel();
        let shutdown = self.clone();
        tokio::spawn(async move {
            let ends = Instant::now() + drain;
            let in_flight = || crate::ops::Metrics::global().calls_in_flight();
            while in_flight() > 0 && Instant::now() < ends {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            if in_flight() > 0 {
                // The calls still running abort, each answering that it may
                // be retried, before the transports close.
                tracing::info!(
                    "the drain ended with {} calls in flight: aborting them",
                    in_flight()
                );
                shutdown.inner.drain_over.cancel();
                let aborted = Instant::now() + SHUTDOWN_BUDGET;
                while in_flight() > 0 && Instant::now() < aborted {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
            // The last answers leave after their handlers return: give them
            // the moment to be written before the transports close.
            tokio::time::sleep(DRAIN_FLUSH).await;
            shutdown.trigger(Reason::Terminate);
        });
        true
    }

    /// Requests shutdown for `reason`; the first request wins.
    pub fn trigger(&self, reason: Reason) {
        let mut since = self
            .inner
            .since
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if since.is_none() {
            tracing::info!("shutting down: {reason}");
            *since = Some((reason, Instant::now()));
            self.inner.requested.cancel();
        }
    }

    /// Records that stdin has ended. While the upstreams start nothing
    /// reads the lines before it, so [`requested_or_stdin_closed`]
    /// (Self::requested_or_stdin_closed) resolves at once; once serving,
    /// the transport requests shutdown after handing rmcp the last line.
    pub(crate) fn stdin_closed(&self) {
        self.inner.stdin_closed.cancel();
    }

    /// Resolves once shutdown is requested.
    pub async fn requested(&self) {
        self.inner.requested.cancelled().await;
    }

    /// Resolves once shutdown is requested or stdin has ended.
    pub async fn requested_or_stdin_closed(&self) {
        tokio::select! {
            () = self.inner.requested.cancelled() => {}
            () = self.inner.stdin_closed.cancelled() => self.trigger(Reason::StdinClosed),
        }
    }

    /// Resolves at the [`deadline`](Self::deadline) of a requested shutdown.
    pub async fn passed_deadline(&self) {
        self.requested().await;
        tokio::time::sleep_until(self.deadline()).await;
    }

    /// A token cancelled when shutdown is requested.
    pub fn token(&self) -> CancellationToken {
        self.inner.requested.child_token()
    }

    /// Why shutdown was requested, if it was.
    pub fn reason(&self) -> Option<Reason> {
        self.since().map(|(reason, _)| reason)
    }

    /// When stopping must be done: [`SHUTDOWN_BUDGET`] after shutdown was
    /// requested (that long from now, if it was not).
    pub fn deadline(&self) -> Instant {
        let start = self.since().map_or_else(Instant::now, |(_, since)| since);
        start + SHUTDOWN_BUDGET
    }

    fn since(&self) -> Option<(Reason, Instant)> {
        *self
            .inner
            .since
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
