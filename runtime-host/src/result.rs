//! What a run produces: value, logs, and the failure, if any, as data.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// Why a run failed. The kinds are orthogonal: a budget expiry is not an
/// exception, an abort is not a timeout, and a sandbox death is neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum FailureKind {
    /// The program threw, or failed to parse or transform.
    Exception,
    /// A budget expired: the message says whether fuel or wall clock.
    Timeout,
    /// The request's abort signal fired (or the runtime was disposed).
    Abort,
    /// The sandbox itself died: memory cap, trap, wasm stack exhaustion.
    WorkerExit,
}

impl FailureKind {
    /// The kind's name as the contract spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Exception => "exception",
            FailureKind::Timeout => "timeout",
            FailureKind::Abort => "abort",
            FailureKind::WorkerExit => "worker-exit",
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A run's failure: its kind and a message written for a model to act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeRunFailure {
    /// The failure class.
    pub kind: FailureKind,
    /// What happened, precisely enough to self-correct.
    pub message: String,
}

impl CodeRunFailure {
    pub(crate) fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for CodeRunFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

/// The outcome of one run. A failure is a field, never an `Err` of `run`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CodeRunResult {
    /// The returned value, when the program returned one and succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// Console output, one entry per call, in order (capped).
    pub logs: Vec<String>,
    /// Present iff the run failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CodeRunFailure>,
    /// Fuel the guest consumed (0 when no guest was started).
    pub fuel_consumed: u64,
}

impl CodeRunResult {
    pub(crate) fn failed(error: CodeRunFailure) -> Self {
        Self {
            value: None,
            logs: Vec::new(),
            error: Some(error),
            fuel_consumed: 0,
        }
    }

    /// Whether the run succeeded.
    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }
}
