//! The trace of one `run_code` run: the tool calls it made, in order, with
//! their timings, sizes and outcomes, and what the run cost.

use std::time::Duration;

use serde::{Serialize, Serializer};

/// What one `run_code` run did, attached to its result
/// ([`ToolResult::trace`](crate::ToolResult::trace)).
///
/// Durations serialise as fractional milliseconds (`duration_ms`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RunTrace {
    /// The `run_code` call's id.
    pub call_id: String,
    /// The tool calls that were dispatched, in the order they finished.
    pub calls: Vec<TraceCall>,
    /// Fuel the program consumed.
    pub fuel_consumed: u64,
    /// The most linear memory the guest held, in bytes.
    pub peak_memory_bytes: u64,
    /// From the start of the run to its result.
    #[serde(rename = "wall_time_ms", serialize_with = "millis")]
    pub wall_time: Duration,
    /// How the run ended: `ok`, `paused`, or its failure kind (`exception`,
    /// `timeout`, `abort`, `worker-exit`, ...).
    pub outcome: String,
    /// Bytes of text `run_code` returned (within the output budget).
    pub output_bytes: usize,
    /// Whether the output budget cut the text.
    pub output_truncated: bool,
}

/// One tool call of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TraceCall {
    /// `<run_code call id>:code:<n>`.
    pub sub_call_id: String,
    /// The tool.
    pub name: String,
    /// The tool's group (an MCP gateway's upstream), if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Time spent waiting for a turn in the run's call queue.
    #[serde(rename = "queue_wait_ms", serialize_with = "millis")]
    pub queue_wait: Duration,
    /// Time from dispatch (hooks included) to result.
    #[serde(rename = "duration_ms", serialize_with = "millis")]
    pub duration: Duration,
    /// Bytes of the arguments, as JSON.
    pub bytes_in: usize,
    /// Bytes of what the call gave the program (its value as JSON, or its
    /// error text).
    pub bytes_out: usize,
    /// `ok` or `error`.
    pub outcome: &'static str,
}

fn millis<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64((duration.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0)
}
