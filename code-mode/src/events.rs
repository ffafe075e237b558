//! Dispatch events: the log of the tool calls a `run_code` program made.

use serde::Serialize;
use serde_json::Value;

/// Longest `result_summary`, in bytes (`…` included when it was cut).
pub const MAX_SUMMARY_BYTES: usize = 400;

/// One tool call a `run_code` program made, recorded once the call has
/// settled (before the program sees its result).
///
/// Only calls that were dispatched are recorded: a call that reached its
/// turn in the run's queue and went through the pre-execute hooks (a denied
/// call is recorded, with `is_error`). Calls rejected before that (an
/// argument JSON cannot carry, a missing argument object, a call after the
/// run ended, a call abandoned in the queue) are not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DispatchEvent {
    /// The id of the `run_code` call whose program made this call.
    pub parent_call_id: String,
    /// `<parent_call_id>:code:<n>`, `n` counting dispatched calls from 1 per run.
    pub sub_call_id: String,
    /// The tool called.
    pub name: String,
    /// The arguments exactly as dispatched (after JSON normalisation).
    pub arguments: Value,
    /// Whether the call failed (or was denied).
    pub is_error: bool,
    /// The start of what the program got (the result, or the error text),
    /// at most [`MAX_SUMMARY_BYTES`] bytes, ending in `…` if it was cut.
    pub result_summary: String,
}

/// Receives dispatch events. Called on the task that ran the call; keep it
/// quick (send the event to a channel for slow work).
///
/// Any `Fn(DispatchEvent) + Send + Sync` closure is a sink:
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use coderun_code_mode::{DispatchEvent, ToolRegistry};
///
/// let seen: Arc<Mutex<Vec<DispatchEvent>>> = Arc::default();
/// let sink = seen.clone();
/// let mut registry = ToolRegistry::new();
/// registry.event_sink(move |event: DispatchEvent| {
///     sink.lock().expect("not poisoned").push(event);
/// });
/// ```
pub trait EventSink: Send + Sync {
    /// Records one event.
    fn record(&self, event: DispatchEvent);
}

impl<F> EventSink for F
where
    F: Fn(DispatchEvent) + Send + Sync,
{
    fn record(&self, event: DispatchEvent) {
        self(event)
    }
}

/// `text` cut to [`MAX_SUMMARY_BYTES`], ending in `…` when it was cut.
pub(crate) fn summarize(text: &str) -> String {
    coderun_runtime::shorten(text, MAX_SUMMARY_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_summaries_are_kept_whole() {
        let text = "é".repeat(MAX_SUMMARY_BYTES / 2);
        assert_eq!(summarize(&text), text);
    }

    #[test]
    fn long_summaries_are_cut_at_a_character_boundary() {
        let text = "é".repeat(MAX_SUMMARY_BYTES);
        let summary = summarize(&text);
        assert!(summary.len() <= MAX_SUMMARY_BYTES, "{}", summary.len());
        assert!(summary.ends_with("é…"), "{summary}");
    }
}
