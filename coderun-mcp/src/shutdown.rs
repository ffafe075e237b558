//! When `coderun mcp` stops, and how long stopping may take.
//!
//! SIGINT, SIGTERM, the end of stdin and a closed stdout each request
//! shutdown. From that moment every step of stopping (aborting the programs
//! in flight, stopping the upstreams, letting rmcp send the answers it has)
//! waits at most until one [`deadline`](Shutdown::deadline), so the process
//! exits within a second whatever is running.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long after shutdown is requested the server may still take to send
/// what it has and stop its upstreams; the process exits soon after.
pub const SHUTDOWN_BUDGET: Duration = Duration::from_millis(700);

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
            let reason = tokio::select! {
                _ = interrupt.recv() => Reason::Interrupt,
                _ = terminate.recv() => Reason::Terminate,
            };
            shutdown.trigger(reason);
        });
        Ok(())
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
