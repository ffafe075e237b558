//! An upstream's stderr: read as bytes, forwarded to coderun's log at a
//! capped rate, its last lines kept to explain a failure.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt as _, BufReader};

/// How many lines of an upstream's stderr are kept to explain its failure.
const STDERR_TAIL_LINES: usize = 8;
/// Longest stderr line kept, in bytes.
const STDERR_LINE_BYTES: usize = 400;

/// The last lines an upstream wrote to stderr.
#[derive(Clone, Default)]
pub(super) struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    fn push(&self, line: &str) {
        let line = coderun_runtime::shorten(line.trim_end(), STDERR_LINE_BYTES);
        let mut lines = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if lines.len() == STDERR_TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// `; its stderr ended with: ...`, or nothing when it wrote none.
    pub(super) fn explain(&self) -> String {
        let lines = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if lines.is_empty() {
            return String::new();
        }
        let joined: Vec<&str> = lines.iter().map(String::as_str).collect();
        format!("; its stderr ended with: {}", joined.join(" | "))
    }
}

/// The longest stderr line logged, in bytes: the rest of a longer line is
/// read and dropped as it comes, never held.
const STDERR_LOG_LINE_BYTES: usize = 4096;
/// Bytes of one upstream's stderr logged per second; past it, lines are
/// counted and dropped until the next second, which says how many.
const STDERR_LOG_BYTES_PER_SECOND: usize = 64 * 1024;

/// Forwards an upstream's stderr to coderun's log, keeping its tail. It is
/// read as bytes (invalid UTF-8 is replaced, not an end of reading, so the
/// upstream never blocks on a full pipe), each line held to
/// [`STDERR_LOG_LINE_BYTES`] and the log to
/// [`STDERR_LOG_BYTES_PER_SECOND`].
pub(super) fn forward_stderr(name: String, stderr: tokio::process::ChildStderr, tail: StderrTail) {
    tokio::spawn(async move {
        let mut reader = BufReader::new(stderr);
        let mut log = StderrLog::new(name, tail);
        let mut line: Vec<u8> = Vec::new();
        let mut length = 0usize;
        loop {
            // With lines dropped, the count is said when the second ends,
            // whether or not more comes.
            let read = if log.dropped > 0 {
                match tokio::time::timeout_at(
                    log.window + Duration::from_secs(1),
                    reader.fill_buf(),
                )
                .await
                {
                    Ok(read) => read,
                    Err(_) => {
                        log.roll();
                        continue;
                    }
                }
            } else {
                reader.fill_buf().await
            };
            let buffer = match read {
                Ok(buffer) if !buffer.is_empty() => buffer,
                _ => break,
            };
            let end = buffer.iter().position(|&b| b == b'\n');
            let part = &buffer[..end.unwrap_or(buffer.len())];
            let room = STDERR_LOG_LINE_BYTES.saturating_sub(line.len());
            line.extend_from_slice(&part[..part.len().min(room)]);
            length += part.len();
            let consumed = part.len() + usize::from(end.is_some());
            reader.consume(consumed);
            if end.is_some() {
                log.line(&line, length);
                line.clear();
                length = 0;
            }
        }
        if length > 0 {
            log.line(&line, length);
        }
        log.flush();
    });
}

/// The rate-capped log of one upstream's stderr.
struct StderrLog {
    name: String,
    tail: StderrTail,
    window: tokio::time::Instant,
    logged: usize,
    dropped: usize,
}

impl StderrLog {
    fn new(name: String, tail: StderrTail) -> Self {
        Self {
            name,
            tail,
            window: tokio::time::Instant::now(),
            logged: 0,
            dropped: 0,
        }
    }

    /// One line: its first bytes, and its whole length in bytes.
    fn line(&mut self, kept: &[u8], length: usize) {
        let mut text = String::from_utf8_lossy(kept).into_owned();
        if length > kept.len() {
            text.push_str(&format!("… [a line of {length} bytes, cut]"));
        }
        self.tail.push(&text);
        if self.window.elapsed() >= Duration::from_secs(1) {
            self.roll();
        }
        if self.logged + text.len() > STDERR_LOG_BYTES_PER_SECOND {
            self.dropped += 1;
            return;
        }
        self.logged += text.len();
        tracing::info!(upstream = %self.name, "{text}");
    }

    /// Starts the next second of the rate cap.
    fn roll(&mut self) {
        self.flush();
        self.window = tokio::time::Instant::now();
        self.logged = 0;
    }

    /// Says how many lines the rate cap dropped, if any.
    fn flush(&mut self) {
        if self.dropped > 0 {
            tracing::warn!(
                upstream = %self.name,
                "{} lines of its stderr were not logged (over {} bytes a second)",
                self.dropped,
                STDERR_LOG_BYTES_PER_SECOND
            );
            self.dropped = 0;
        }
    }
}
