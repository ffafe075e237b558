//! The stdio transport of `coderun mcp`: newline-delimited JSON-RPC on
//! stdin and stdout, as the MCP stdio transport specifies.
//!
//! Two plain threads own the standard streams, so that no read or write
//! ever holds the async runtime: a thread blocked reading stdin does not
//! keep the process from exiting when a signal asks it to, as a read on
//! tokio's stdin (the blocking pool) would.
//!
//! - The **reader** reads stdin line by line, never buffering more than the
//!   cap of a line: the rest of a longer line is discarded up to its newline
//!   and the line is reported as oversized.
//! - The **writer** is the only code that writes stdout. rmcp's responses
//!   and the transport's own error replies reach it through one channel, one
//!   whole line per item, so they never interleave mid-line.
//!
//! [`LineTransport`] sits between them and rmcp: it classifies each line
//! ([`jsonrpc::classify`]), answers the invalid ones itself and hands rmcp
//! the rest. Until the handshake has begun it holds back messages that are
//! not requests, which rmcp would take as a failed handshake and stop.

use std::io::{BufRead, Write as _};

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage, ServerResult};
use rmcp::service::ServerInitializeError;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServiceExt as _};
use tokio::sync::{mpsc, oneshot};

use super::ServeError;
use super::jsonrpc::{self, ErrorReply, Incoming};
use super::server::CodeModeServer;
use super::shutdown::{Reason, Shutdown};

/// Lines read ahead of rmcp; the reader waits when rmcp falls behind.
const READ_AHEAD_LINES: usize = 16;
/// Lines queued for stdout; senders wait when the client reads slowly.
const WRITE_QUEUE_LINES: usize = 64;

/// What the reader saw.
#[derive(Debug)]
enum Input {
    /// A whole line, without its newline.
    Line(Vec<u8>),
    /// A line longer than the cap (discarded).
    Oversized,
    /// End of input, or a read error (logged).
    Closed,
}

/// A line for the writer, or a request to say when it has written
/// everything before.
enum Output {
    Line(Vec<u8>),
    Flushed(oneshot::Sender<()>),
}

/// Reads lines of at most `max_bytes` bytes (the newline not counted) from
/// a buffered reader.
pub(crate) struct LineReader<R> {
    inner: R,
    max_bytes: usize,
    line: Vec<u8>,
    discarding: bool,
}

/// One item of [`LineReader::next`].
#[derive(Debug, PartialEq)]
pub(crate) enum Line {
    /// A line within the cap, without its newline.
    Complete(Vec<u8>),
    /// A line over the cap: reported once the cap is passed; the reader
    /// then skips the rest of it.
    Oversized,
}

impl<R: BufRead> LineReader<R> {
    pub(crate) fn new(inner: R, max_bytes: usize) -> Self {
        Self {
            inner,
            max_bytes,
            line: Vec::new(),
            discarding: false,
        }
    }

    /// The next line, or `None` at end of input. A last line without a
    /// newline counts as a line.
    pub(crate) fn next(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            let available = match self.inner.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                self.discarding = false;
                if self.line.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(Line::Complete(std::mem::take(&mut self.line))));
            }
            let newline = available.iter().position(|&byte| byte == b'\n');
            let content = newline.unwrap_or(available.len());
            let consumed = newline.map_or(available.len(), |at| at + 1);
            if self.discarding {
                self.inner.consume(consumed);
                if newline.is_some() {
                    self.discarding = false;
                }
                continue;
            }
            if self.line.len() + content > self.max_bytes {
                self.line = Vec::new();
                self.inner.consume(consumed);
                self.discarding = newline.is_none();
                return Ok(Some(Line::Oversized));
            }
            self.line.extend_from_slice(&available[..content]);
            self.inner.consume(consumed);
            if newline.is_some() {
                return Ok(Some(Line::Complete(std::mem::take(&mut self.line))));
            }
        }
    }
}

/// The standard streams of `coderun mcp`, owned by their threads.
pub struct Stdio {
    reads: mpsc::Receiver<Input>,
    writes: mpsc::Sender<Output>,
    max_line_bytes: usize,
}

impl std::fmt::Debug for Stdio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stdio")
            .field("max_line_bytes", &self.max_line_bytes)
            .finish_non_exhaustive()
    }
}

impl Stdio {
    /// Starts the reader and the writer threads. A line longer than
    /// `max_line_bytes` is answered with an error. The end of stdin, and a
    /// stdout the client has closed, trigger `shutdown`: at once for stdout;
    /// for stdin, at once while no server reads it yet (the upstreams are
    /// starting), else once rmcp has been handed every line before it.
    pub fn start(max_line_bytes: usize, shutdown: &Shutdown) -> std::io::Result<Self> {
        let (read_tx, reads) = mpsc::channel(READ_AHEAD_LINES);
        let (writes, write_rx) = mpsc::channel(WRITE_QUEUE_LINES);
        let on_eof = shutdown.clone();
        std::thread::Builder::new()
            .name("coderun-stdin".to_owned())
            .spawn(move || read_stdin(max_line_bytes, read_tx, on_eof))?;
        let on_closed = shutdown.clone();
        std::thread::Builder::new()
            .name("coderun-stdout".to_owned())
            .spawn(move || write_stdout(write_rx, on_closed))?;
        Ok(Self {
            reads,
            writes,
            max_line_bytes,
        })
    }

    /// The transport for rmcp, and a handle to wait for stdout to be written.
    pub(crate) fn into_transport(self, shutdown: &Shutdown) -> (LineTransport, StdoutFlush) {
        let flush = StdoutFlush(self.writes.clone());
        let transport = LineTransport {
            reads: self.reads,
            writes: self.writes,
            max_line_bytes: self.max_line_bytes,
            pending: None,
            started: false,
            shutdown: shutdown.clone(),
        };
        (transport, flush)
    }
}

fn read_stdin(max_line_bytes: usize, reads: mpsc::Sender<Input>, shutdown: Shutdown) {
    let stdin = std::io::stdin();
    let mut lines = LineReader::new(stdin.lock(), max_line_bytes);
    loop {
        let read = match lines.next() {
            Ok(Some(Line::Complete(line))) => Input::Line(line),
            Ok(Some(Line::Oversized)) => {
                tracing::warn!("discarding a message longer than {max_line_bytes} bytes");
                Input::Oversized
            }
            Ok(None) => Input::Closed,
            Err(error) => {
                tracing::error!("reading stdin failed: {error}");
                Input::Closed
            }
        };
        let closed = matches!(read, Input::Closed);
        if closed {
            // Before the send, which waits while the lines before are unread.
            shutdown.stdin_closed();
        }
        if reads.blocking_send(read).is_err() || closed {
            return;
        }
    }
}

fn write_stdout(mut writes: mpsc::Receiver<Output>, shutdown: Shutdown) {
    let stdout = std::io::stdout();
    let mut stdout = stdout.lock();
    while let Some(write) = writes.blocking_recv() {
        match write {
            Output::Line(line) => {
                if let Err(error) = stdout.write_all(&line).and_then(|()| stdout.flush()) {
                    if error.kind() != std::io::ErrorKind::BrokenPipe {
                        tracing::error!("writing stdout failed: {error}");
                    }
                    shutdown.trigger(Reason::StdoutClosed);
                    return;
                }
            }
            Output::Flushed(done) => {
                let _ = done.send(());
            }
        }
    }
}

/// Waits for the writer to have written every line queued so far.
#[derive(Debug, Clone)]
pub(crate) struct StdoutFlush(mpsc::Sender<Output>);

impl StdoutFlush {
    /// Resolves once every line queued before the call is written (or the
    /// writer has stopped).
    pub(crate) async fn flushed(&self) {
        let (done, written) = oneshot::channel();
        if self.0.send(Output::Flushed(done)).await.is_ok() {
            let _ = written.await;
        }
    }
}

/// The rmcp transport over the reader and the writer threads.
pub(crate) struct LineTransport {
    reads: mpsc::Receiver<Input>,
    writes: mpsc::Sender<Output>,
    max_line_bytes: usize,
    /// An error reply not yet queued for stdout; kept here so that a
    /// `receive` cancelled while waiting for room does not lose it.
    pending: Option<ErrorReply>,
    /// Whether rmcp serves a session yet ([`starts_session`]).
    started: bool,
    shutdown: Shutdown,
}

impl LineTransport {
    /// Whether rmcp may be handed `message` now. Before the handshake rmcp
    /// takes anything but a request as a failed handshake and stops serving;
    /// JSON-RPC wants notifications unanswered, so they are dropped.
    fn admits(&self, message: &ClientJsonRpcMessage) -> bool {
        let admitted = self.started || matches!(message, ClientJsonRpcMessage::Request(_));
        if !admitted {
            tracing::debug!("ignoring a message that is not a request before initialize");
        }
        admitted
    }
}

/// Whether rmcp sending `message` shows it serving a session: the result of
/// `initialize`, or (in the lifecycle of MCP 2026-07-28, which has no
/// handshake) a result other than those it gives before a session starts
/// (`ping`'s empty one, `server/discover`'s).
fn starts_session(message: &ServerJsonRpcMessage) -> bool {
    let ServerJsonRpcMessage::Response(response) = message else {
        return false;
    };
    !matches!(
        response.result,
        ServerResult::EmptyResult(_) | ServerResult::DiscoverResult(_)
    )
}

/// The line rmcp's message becomes. rmcp leaves an absent error id out; a
/// JSON-RPC error reply must say `"id": null`.
fn message_line(message: &ServerJsonRpcMessage) -> std::io::Result<Vec<u8>> {
    if let ServerJsonRpcMessage::Error(error) = message
        && error.id.is_none()
    {
        return Ok(ErrorReply::new(None, error.error.clone()).to_line());
    }
    let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    line.push(b'\n');
    Ok(line)
}

fn stdout_closed() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed")
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if starts_session(&item) {
            self.started = true;
        }
        let line = message_line(&item);
        let writes = self.writes.clone();
        async move {
            writes
                .send(Output::Line(line?))
                .await
                .map_err(|_| stdout_closed())
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.pending.is_some() {
                // Reserve first: cancelled here, the reply stays pending.
                let permit = self.writes.reserve().await.ok()?;
                if let Some(reply) = self.pending.take() {
                    permit.send(Output::Line(reply.to_line()));
                }
            }
            let line = match self.reads.recv().await {
                Some(Input::Line(line)) => line,
                Some(Input::Oversized) => {
                    self.pending = Some(jsonrpc::oversized(self.max_line_bytes));
                    continue;
                }
                Some(Input::Closed) | None => {
                    self.shutdown.trigger(Reason::StdinClosed);
                    return None;
                }
            };
            match jsonrpc::classify(&line) {
                Incoming::Message(message) if self.admits(&message) => return Some(*message),
                Incoming::Message(_) | Incoming::Ignored => {}
                Incoming::Invalid(reply) => {
                    tracing::info!("answering an invalid message: {}", reply.message());
                    self.pending = Some(reply);
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Serves `server` over the standard streams until the client closes stdin
/// or shutdown is requested otherwise. Once it is, rmcp has until the
/// shutdown deadline to send the answers of the requests in flight (their
/// programs are aborted meanwhile), and the writer to write them.
pub async fn serve_stdio(
    server: CodeModeServer,
    stdio: Stdio,
    shutdown: &Shutdown,
) -> Result<(), ServeError> {
    let (transport, flush) = stdio.into_transport(shutdown);
    let serving = async {
        let running = match server.serve_with_ct(transport, shutdown.token()).await {
            Ok(running) => running,
            Err(ServerInitializeError::ConnectionClosed(_) | ServerInitializeError::Cancelled) => {
                return Ok(());
            }
            Err(error) => return Err(ServeError::Handshake(error.to_string())),
        };
        running
            .waiting()
            .await
            .map_err(|error| ServeError::Transport {
                transport: "stdio",
                message: error.to_string(),
            })?;
        Ok(())
    };
    let served = tokio::select! {
        served = serving => served,
        () = shutdown.passed_deadline() => {
            tracing::info!("answers not sent by the shutdown deadline are dropped");
            Ok(())
        }
    };
    let _ = tokio::time::timeout_at(shutdown.deadline(), flush.flushed()).await;
    served
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max_bytes: usize, capacity: usize) -> Vec<Line> {
        let reader = std::io::BufReader::with_capacity(capacity, input);
        let mut lines = LineReader::new(reader, max_bytes);
        std::iter::from_fn(|| lines.next().expect("reading from memory")).collect()
    }

    #[test]
    fn lines_within_the_cap_are_read_whole() {
        let read = lines(b"{\"a\":1}\n\n{\"b\":2}\nlast", 8, 3);
        assert_eq!(
            read,
            [
                Line::Complete(b"{\"a\":1}".to_vec()),
                Line::Complete(Vec::new()),
                Line::Complete(b"{\"b\":2}".to_vec()),
                Line::Complete(b"last".to_vec()),
            ]
        );
    }

    #[test]
    fn a_line_over_the_cap_is_reported_once_and_skipped_to_its_newline() {
        for capacity in [1, 4, 64] {
            let read = lines(b"0123456789abcdef\nok\n0123456789\n", 8, capacity);
            assert_eq!(
                read,
                [
                    Line::Oversized,
                    Line::Complete(b"ok".to_vec()),
                    Line::Oversized
                ],
                "buffer of {capacity} bytes"
            );
        }
    }

    #[test]
    fn the_cap_counts_the_line_without_its_newline() {
        assert_eq!(
            lines(b"12345678\n", 8, 16),
            [Line::Complete(b"12345678".to_vec())]
        );
    }
}
