//! The one place that decides what kind of failure a run's end was.

use std::time::Duration;

use wasmtime::Trap;

use crate::result::{CodeRunFailure, FailureKind};

/// A guest broke the host/guest protocol (a forged or impossible message).
#[derive(Debug, thiserror::Error)]
#[error("the guest broke the host protocol: {0}")]
pub(crate) struct ProtocolViolation(pub(crate) String);

/// The guest's memory grew past the configured cap.
#[derive(Debug, thiserror::Error)]
#[error("the guest's memory exceeded max_memory_bytes")]
pub(crate) struct MemoryCapExceeded;

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

/// Maps an error that ended the guest's execution to a failure.
pub(crate) fn classify(
    error: &wasmtime::Error,
    fuel: u64,
    max_memory_bytes: u64,
) -> CodeRunFailure {
    if error.is::<MemoryCapExceeded>() {
        return memory_exceeded(max_memory_bytes);
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
