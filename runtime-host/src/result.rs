//! What a run produces: value, logs, and the failure, if any, as data.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::durable::{Interrupted, RunRecord};
use crate::failure::CodeRunFailure;

/// The outcome of one run. A failure is a field, never an `Err` of `run`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CodeRunResult {
    /// The returned value, when the program returned one and succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// The returned value as `console.log` prints it (a string as itself,
    /// anything else like Node's `util.inspect`), by the one renderer (the
    /// guest's, built for the host too, which renders plain data from the
    /// guest's tape of it), but with nothing elided (`console.log` shows nesting
    /// two levels deep and 100 items of a list): it is the program's
    /// answer. Capped by `max_value_bytes` like the value. Present iff
    /// `value` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_display: Option<String>,
    /// Console output, one entry per call, in order (capped).
    pub logs: Vec<LogLine>,
    /// Present iff the run failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CodeRunFailure>,
    /// Present iff a binding interrupted the run
    /// ([`BindingError::interrupt`](crate::BindingError::interrupt)): the
    /// payload and the continuation to resume it with. Then neither `value`
    /// nor `error` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Box<Interrupted>>,
    /// The run's record, when the request asked for one
    /// ([`CodeRunRequest::record`](crate::CodeRunRequest::record)) or
    /// replayed or resumed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<Box<RunRecord>>,
    /// Fuel the guest consumed (0 when no guest was started).
    pub fuel_consumed: u64,
    /// The largest size the guest's linear memory reached, in bytes (0 when
    /// no guest was started).
    pub peak_memory_bytes: u64,
}

impl CodeRunResult {
    pub(crate) fn failed(error: CodeRunFailure) -> Self {
        Self {
            value: None,
            value_display: None,
            logs: Vec::new(),
            error: Some(error),
            interrupted: None,
            record: None,
            fuel_consumed: 0,
            peak_memory_bytes: 0,
        }
    }

    /// Whether the run returned (it neither failed nor was interrupted).
    pub fn is_ok(&self) -> bool {
        self.error.is_none() && self.interrupted.is_none()
    }
}

/// Which console method printed a line (`console.log`, `.info`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum LogLevel {
    /// `console.log`.
    Log,
    /// `console.info`.
    Info,
    /// `console.warn`, and the line that marks logs cut at their cap.
    Warn,
    /// `console.error`.
    Error,
    /// `console.debug`.
    Debug,
}

/// One console line: the method that printed it and what it printed (its
/// arguments rendered like Node's `util.inspect` and joined by spaces).
/// Compares equal to a string with the same text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogLine {
    /// The console method.
    pub level: LogLevel,
    /// The line.
    pub text: String,
}

impl LogLine {
    /// A line printed with `level`.
    pub fn new(level: LogLevel, text: impl Into<String>) -> Self {
        Self {
            level,
            text: text.into(),
        }
    }
}

impl fmt::Display for LogLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq<str> for LogLine {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<&str> for LogLine {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl PartialEq<String> for LogLine {
    fn eq(&self, other: &String) -> bool {
        &self.text == other
    }
}
