//! Failures: their kinds, and the one place that decides what kind of
//! failure a run's end was and what its message says. Every
//! `CodeRunFailure` is built here.

use std::fmt;
use std::time::Duration;

use serde::Serialize;
use wasmtime::Trap;

use crate::durable::{Divergence, RecordOverflow};

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
    /// A replayed or resumed run did not make the calls its record holds:
    /// the message names the step and what differed.
    Diverged,
}

impl FailureKind {
    /// The kind's name as the contract spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Exception => "exception",
            FailureKind::Timeout => "timeout",
            FailureKind::Abort => "abort",
            FailureKind::WorkerExit => "worker-exit",
            FailureKind::Diverged => "diverged",
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
    fn new(kind: FailureKind, message: impl Into<String>) -> Self {
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

/// The program threw (or failed to compile): `text` is what it threw,
/// rendered, with positions in the program as written.
pub(crate) fn exception(text: impl Into<String>) -> CodeRunFailure {
    CodeRunFailure::new(FailureKind::Exception, text)
}

/// The TypeScript front end stopped before finishing (a panic in oxc, or
/// its thread went away).
pub(crate) fn front_end_stopped() -> CodeRunFailure {
    exception("InternalError: the TypeScript front end stopped unexpectedly")
}

/// The store could not be set up for the run.
pub(crate) fn sandbox_not_started(error: &wasmtime::Error) -> CodeRunFailure {
    CodeRunFailure::new(
        FailureKind::WorkerExit,
        format!("the sandbox could not be started: {error:#}"),
    )
}

/// A guest broke the host/guest protocol (a forged or impossible message).
#[derive(Debug, thiserror::Error)]
#[error("the guest broke the host protocol: {0}")]
pub(crate) struct ProtocolViolation(pub(crate) String);

/// The guest's memory grew past the configured cap.
#[derive(Debug, thiserror::Error)]
#[error("the guest's memory exceeded max_memory_bytes")]
pub(crate) struct MemoryCapExceeded;

/// The guest's growth would have taken the runtime's runs together past
/// their shared budget.
#[derive(Debug, thiserror::Error)]
#[error("the runtime's runs together exceeded max_total_memory_bytes ({budget})")]
pub(crate) struct TotalMemoryExceeded {
    pub(crate) budget: u64,
}

pub(crate) fn fuel_exhausted(fuel: u64) -> CodeRunFailure {
    CodeRunFailure::new(
        FailureKind::Timeout,
        format!(
            "the program ran out of its fuel budget ({fuel} units, config.fuel): it did too much \
             computation, or loops forever; do less work per run"
        ),
    )
}

pub(crate) fn wall_clock_expired(wall_clock: Duration) -> CodeRunFailure {
    CodeRunFailure::new(
        FailureKind::Timeout,
        format!(
            "the program exceeded its wall-clock budget ({wall_clock:?}, config.wall_clock); \
             a binding call it awaited may never have settled"
        ),
    )
}

pub(crate) fn aborted(reason: String) -> CodeRunFailure {
    CodeRunFailure::new(FailureKind::Abort, reason)
}

pub(crate) fn disposed() -> CodeRunFailure {
    CodeRunFailure::new(
        FailureKind::Abort,
        "the run was aborted because the runtime was disposed",
    )
}

pub(crate) fn stalled() -> CodeRunFailure {
    CodeRunFailure::new(
        FailureKind::Exception,
        "the program awaited a promise that can never settle: nothing was left to run and no \
         binding call was in flight",
    )
}

pub(crate) fn memory_exceeded(max_memory_bytes: u64) -> CodeRunFailure {
    CodeRunFailure::new(
        FailureKind::WorkerExit,
        format!(
            "the sandbox ran out of memory: the program needed more than the memory cap of {} MiB \
             (config.max_memory_bytes = {max_memory_bytes}); work on less data at once",
            max_memory_bytes / (1024 * 1024)
        ),
    )
}

pub(crate) fn total_memory_exceeded(budget: u64) -> CodeRunFailure {
    CodeRunFailure::new(
        FailureKind::WorkerExit,
        format!(
            "the sandbox was stopped: its memory would have taken the runtime's concurrent runs \
             past their shared budget of {} MiB (config.max_total_memory_bytes = {budget}); \
             retry when fewer runs are active, or work on less data at once",
            budget / (1024 * 1024)
        ),
    )
}

/// A replay's program made other calls than its record.
pub(crate) fn diverged(divergence: &Divergence) -> CodeRunFailure {
    CodeRunFailure::new(FailureKind::Diverged, divergence.to_string())
}

/// Maps an error that ended the guest's execution to a failure.
pub(crate) fn classify(
    error: &wasmtime::Error,
    fuel: u64,
    max_memory_bytes: u64,
) -> CodeRunFailure {
    if error.is::<MemoryCapExceeded>() {
        return memory_exceeded(max_memory_bytes);
    }
    if let Some(exceeded) = error.downcast_ref::<TotalMemoryExceeded>() {
        return total_memory_exceeded(exceeded.budget);
    }
    if let Some(divergence) = error.downcast_ref::<Divergence>() {
        return diverged(divergence);
    }
    if let Some(overflow) = error.downcast_ref::<RecordOverflow>() {
        return exception(overflow.to_string());
    }
    if let Some(violation) = error.downcast_ref::<ProtocolViolation>() {
        return CodeRunFailure::new(FailureKind::WorkerExit, violation.to_string());
    }
    match error.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => fuel_exhausted(fuel),
        Some(Trap::StackOverflow) => CodeRunFailure::new(
            FailureKind::WorkerExit,
            "the sandbox's wasm stack overflowed (the engine recursed too deeply in native code)",
        ),
        Some(trap) => CodeRunFailure::new(
            FailureKind::WorkerExit,
            format!("the sandbox trapped: {trap}"),
        ),
        None => CodeRunFailure::new(
            FailureKind::WorkerExit,
            format!("the sandbox failed: {error:#}"),
        ),
    }
}
