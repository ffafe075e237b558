//! MCP logging: a client that sets a level with `logging/setLevel` gets
//! each `run_code` program's console lines at or above that level as
//! `notifications/message` (logger `run_code`), in order, before the
//! call's response. A client that sets no level gets none: the lines are
//! in the result either way.
//!
//! The level belongs to the session: each HTTP session, and the one stdio
//! client, sets its own. A request on MCP 2026-07-28, which has no
//! sessions, carries its own in `_meta` (`io.modelcontextprotocol/logLevel`).
#![allow(
    deprecated,
    reason = "rmcp marks MCP logging deprecated for the protocols after 2025-11-25 (SEP-2577); \
              clients on 2025-11-25 and before use it, and the conformance suite tests it"
)]

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::{Peer, RoleServer};
use serde_json::Value;

/// The logger name console lines are sent under.
const LOGGER: &str = "run_code";
/// How long a finished call waits for its console lines to go out before
/// its response does (a client that reads nothing must not hold it).
const SEND_TIMEOUT: Duration = Duration::from_secs(1);

/// The level one session's client set, if it set one.
#[derive(Debug, Default)]
pub(crate) struct SessionLevel(Mutex<Option<LoggingLevel>>);

impl SessionLevel {
    /// A level set at `level` from the start.
    pub(crate) fn at(level: LoggingLevel) -> Self {
        Self(Mutex::new(Some(level)))
    }

    pub(crate) fn set(&self, level: LoggingLevel) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(level);
    }

    pub(crate) fn get(&self) -> Option<LoggingLevel> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Severity, lowest first, as RFC 5424 orders MCP's levels.
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// Whether a session at `threshold` gets a message at `level`.
pub(crate) fn allows(threshold: LoggingLevel, level: LoggingLevel) -> bool {
    rank(level) >= rank(threshold)
}

/// The MCP level of a console line of `level` (`console.debug` is debug,
/// `log` and `info` info, `warn` warning, `error` error).
fn console_level(level: &str) -> LoggingLevel {
    match level {
        "debug" => LoggingLevel::Debug,
        "warn" => LoggingLevel::Warning,
        "error" => LoggingLevel::Error,
        _ => LoggingLevel::Info,
    }
}

/// Sends the console lines in `logs` (a run's `[{level, text}]`) at or
/// above `threshold` to `peer`, within [`SEND_TIMEOUT`] in all.
pub(crate) async fn send_console_lines(
    peer: &Peer<RoleServer>,
    threshold: LoggingLevel,
    logs: &Value,
) {
    let Some(lines) = logs.as_array() else {
        return;
    };
    let send = async {
        for line in lines {
            let level = console_level(line.get("level").and_then(Value::as_str).unwrap_or("log"));
            if !allows(threshold, level) {
                continue;
            }
            let text = line.get("text").cloned().unwrap_or(Value::Null);
            let message = LoggingMessageNotificationParam::new(level, text).with_logger(LOGGER);
            if peer.notify_logging_message(message).await.is_err() {
                return;
            }
        }
    };
    if tokio::time::timeout(SEND_TIMEOUT, send).await.is_err() {
        tracing::info!("the client did not take a run's console lines within {SEND_TIMEOUT:?}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_order_by_severity() {
        let ordered = [
            LoggingLevel::Debug,
            LoggingLevel::Info,
            LoggingLevel::Notice,
            LoggingLevel::Warning,
            LoggingLevel::Error,
            LoggingLevel::Critical,
            LoggingLevel::Alert,
            LoggingLevel::Emergency,
        ];
        assert!(ordered.windows(2).all(|pair| rank(pair[0]) < rank(pair[1])));
        assert_eq!(console_level("log"), LoggingLevel::Info);
        assert_eq!(console_level("warn"), LoggingLevel::Warning);
    }
}
