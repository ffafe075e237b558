//! Durable runs: a run's record, its replay, and interrupt and resume.
//!
//! A run is a pure function of its program, its seed, its clock and what its
//! binding calls returned: the guest is a fresh instance from a fixed
//! snapshot, fuel is deterministic, and the host owns every clock and
//! generator the guest reads. So a run's [`RunRecord`] (those inputs and the
//! ordered ledger of its binding calls) is enough to run it again without
//! calling any host function: the ledger answers each call, after checking
//! that the program made the same call with the same argument (a difference
//! ends the run as [`FailureKind::Diverged`](crate::FailureKind::Diverged),
//! naming the step).
//!
//! A binding may answer with an interrupt ([`BindingError::interrupt`]
//! (crate::BindingError::interrupt)): the run then ends with an
//! [`Interrupted`] outcome, carrying the payload and a [`Continuation`]
//! (the record so far). Resuming replays the ledger, delivers the answer
//! as the interrupted call's result, and goes on live: nothing already
//! called is called again, in this process or another.
//!
//! The formats are versioned JSON (`serde`), documented in the README's
//! "Durable runs"; a continuation can be signed with a key the host holds
//! and carries an expiry (see `sign`).

mod ledger;
mod session;
mod sign;

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clock::Clock;

pub(crate) use ledger::{Delivery, Divergence, Interruption, Ledger, RecordOverflow};
pub(crate) use session::Session;
pub use sign::SigningKey;
pub use sign::sha256_hex;
pub(crate) use sign::{sign, verify};

/// The `format` of a [`RunRecord`].
pub const RECORD_FORMAT: &str = "coderun.run-record";
/// The `format` of a [`Continuation`].
pub const CONTINUATION_FORMAT: &str = "coderun.continuation";
/// The version of both formats this runtime writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Everything a run depended on, so that it can be run again: the program,
/// the guest, the seed, the clock, the bindings, and every binding call with
/// its outcome, in the order the program started them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Always [`RECORD_FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`] when written by this runtime.
    pub version: u32,
    /// SHA-256 of the guest component the run used: a record replays only
    /// on the same guest.
    pub guest_sha256: String,
    /// The program as submitted.
    pub program: String,
    /// SHA-256 of `program`.
    pub program_sha256: String,
    /// The run's seed: `Math.random`, `crypto.getRandomValues`.
    pub seed: u64,
    /// The clock the run read.
    pub clock: Clock,
    /// The request's time zone of local time (`None`: UTC); a replay and
    /// a resume run in it too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// The runtime's budgets during the run, for reference: a replay runs
    /// under the replaying runtime's own.
    pub budgets: RecordedBudgets,
    /// The binding namespaces and their functions, as the program saw them.
    pub bindings: Vec<RecordedNamespace>,
    /// Every binding call, by step (the first call is step 1).
    pub calls: Vec<RecordedCall>,
}

/// The budgets a recorded run ran under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedBudgets {
    /// `config.fuel`.
    pub fuel: u64,
    /// `config.fuel_metering`.
    pub fuel_metering: bool,
    /// `config.wall_clock`, in milliseconds.
    pub wall_clock_ms: u64,
    /// `config.max_memory_bytes`.
    pub max_memory_bytes: u64,
}

/// One binding namespace of a recorded run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedNamespace {
    /// The global the program saw.
    pub global: String,
    /// Its functions' names, sorted.
    pub functions: Vec<String>,
}

/// One binding call of a recorded run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedCall {
    /// Which call: 1 for the first the program started.
    pub step: u64,
    /// The namespace's global.
    pub namespace: String,
    /// The function's name.
    pub function: String,
    /// The argument, as the host received it.
    pub arguments: Value,
    /// How it settled.
    pub outcome: CallOutcome,
    /// When the program was given the outcome: 1 for the first settlement
    /// it saw. `None` if it never was (the run ended first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered: Option<u64>,
}

/// How a recorded binding call settled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CallOutcome {
    /// It resolved with this value.
    Ok(Value),
    /// It rejected with this message (as the program saw it).
    Error(String),
    /// It asked to interrupt the run, with this payload.
    Interrupt(Value),
    /// It had not settled when the run ended.
    Unsettled,
}

/// A run that a binding interrupted: what it asked, and how to resume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interrupted {
    /// The payload the binding gave (e.g. what needs approval).
    pub payload: Value,
    /// The interrupted call: `tools.delete_file`.
    pub call: String,
    /// Its step in the record.
    pub step: u64,
    /// What [`CodeRunRequest::resume`](crate::CodeRunRequest::resume)
    /// takes, in this process or another.
    pub continuation: Continuation,
}

/// An interrupted run, ready to resume: its record so far, the interrupted
/// step, and (when the runtime holds a key) a signature and an expiry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Continuation {
    /// Always [`CONTINUATION_FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`] when written by this runtime.
    pub version: u32,
    /// The run up to the interrupt, the interrupted call included.
    pub record: RunRecord,
    /// The interrupted call's step.
    pub step: u64,
    /// When it stops being resumable, in milliseconds since the Unix epoch
    /// (set when signed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<u64>,
    /// HMAC-SHA256 of everything above, hex (set when signed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

/// Why a record or continuation cannot be replayed or resumed here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DurableError {
    /// Not a format or version this runtime reads.
    #[error(
        "{what} is format {format:?} version {version}; this runtime reads {expected:?} version {FORMAT_VERSION}"
    )]
    Format {
        /// `the record` or `the continuation`.
        what: &'static str,
        /// Its `format`.
        format: String,
        /// Its `version`.
        version: u32,
        /// The format expected.
        expected: &'static str,
    },
    /// Recorded on another guest: its fuel and behaviour may differ.
    #[error(
        "the record was made with guest {recorded}, but this runtime runs guest {current}: \
         replay or resume it with the coderun version that recorded it"
    )]
    GuestMismatch {
        /// The record's guest.
        recorded: String,
        /// This runtime's guest.
        current: String,
    },
    /// A replayed record's program is not the one its hash says it ran.
    #[error(
        "the record's program does not match its program_sha256: the program in the record was \
         edited; to replay an edited program, give it as the request's program (`coderun replay \
         --program`), and the replay names the step where it diverges"
    )]
    RecordEdited,
    /// A resume's program is not the one the record ran.
    #[error(
        "the continuation's program does not match its program_sha256, or the request's \
         program is another: a continuation resumes only the program it interrupted"
    )]
    ProgramMismatch,
    /// The request's bindings are not the recorded ones.
    #[error("the continuation's bindings are {recorded}, but the request gives {given}")]
    BindingMismatch {
        /// The recorded namespaces and functions.
        recorded: String,
        /// The request's.
        given: String,
    },
    /// The step is not an interrupted call of the record.
    #[error("step {step} of the record is not an interrupted call")]
    NotInterrupted {
        /// The continuation's step.
        step: u64,
    },
    /// The runtime holds a key and the continuation has no valid signature.
    #[error(
        "the continuation's signature is {0}: it was not issued by this host's key, or was altered"
    )]
    BadSignature(&'static str),
    /// Not JSON of the format, or nested too deeply.
    #[error("{what} cannot be read: {reason}")]
    Unreadable {
        /// `the record` or `the continuation`.
        what: &'static str,
        /// What was wrong.
        reason: String,
    },
    /// Past its expiry.
    #[error("the continuation expired at {expires_at_ms} ms since the Unix epoch (now {now_ms})")]
    Expired {
        /// Its expiry.
        expires_at_ms: u64,
        /// The host's time.
        now_ms: u64,
    },
}

/// The most bytes of a record's own text (a serde message quoting it, its
/// format, guest or bindings) that a [`DurableError`] repeats: a hostile
/// record cannot make the refusal long.
const SHOWN_BYTES: usize = 256;

/// `text` cut to [`SHOWN_BYTES`], for a [`DurableError`].
pub(crate) fn shown(text: &str) -> String {
    crate::output::shorten(text, SHOWN_BYTES)
}

impl fmt::Display for RecordedNamespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{{{}}}", self.global, self.functions.join(", "))
    }
}

/// `namespaces` as a message lists them: `tools.{a, b}; demo.{echo}`.
pub(crate) fn describe(namespaces: &[RecordedNamespace]) -> String {
    if namespaces.is_empty() {
        return "none".to_owned();
    }
    namespaces
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Levels a record adds around the values its calls carry.
const RECORD_NESTING: usize = 8;

/// Reads `text` as `T`, nesting no deeper than a guest's values may plus
/// the format's own levels: a hostile file cannot overflow the stack.
fn from_json<T: serde::de::DeserializeOwned>(
    text: &str,
    what: &'static str,
) -> Result<T, DurableError> {
    let unreadable = |reason: String| DurableError::Unreadable {
        what,
        reason: shown(&reason),
    };
    let value = crate::json::parse_within(text, crate::json::MAX_JSON_DEPTH + RECORD_NESTING)
        .map_err(|error| unreadable(error.to_string()))?;
    serde_json::from_value(value).map_err(|error| unreadable(error.to_string()))
}

impl RunRecord {
    /// Reads a record from its JSON (as `serde_json::to_string` wrote it).
    pub fn from_json(text: &str) -> Result<Self, DurableError> {
        from_json(text, "the record")
    }

    /// Checks the format and the guest.
    pub(crate) fn check(&self, guest_sha256: &str) -> Result<(), DurableError> {
        if self.format != RECORD_FORMAT || self.version != FORMAT_VERSION {
            return Err(DurableError::Format {
                what: "the record",
                format: shown(&self.format),
                version: self.version,
                expected: RECORD_FORMAT,
            });
        }
        if self.guest_sha256 != guest_sha256 {
            return Err(DurableError::GuestMismatch {
                recorded: shown(&self.guest_sha256),
                current: guest_sha256.to_owned(),
            });
        }
        Ok(())
    }
}

impl Continuation {
    /// Reads a continuation from its JSON (as `serde_json::to_string`
    /// wrote it).
    pub fn from_json(text: &str) -> Result<Self, DurableError> {
        from_json(text, "the continuation")
    }

    /// Checks the format and the step (the record is checked by the run).
    pub(crate) fn check(&self) -> Result<(), DurableError> {
        if self.format != CONTINUATION_FORMAT || self.version != FORMAT_VERSION {
            return Err(DurableError::Format {
                what: "the continuation",
                format: shown(&self.format),
                version: self.version,
                expected: CONTINUATION_FORMAT,
            });
        }
        let interrupted = self
            .step
            .checked_sub(1)
            .and_then(|index| self.record.calls.get(index as usize))
            .is_some_and(|call| matches!(call.outcome, CallOutcome::Interrupt(_)));
        if interrupted {
            Ok(())
        } else {
            Err(DurableError::NotInterrupted { step: self.step })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record quoting a megabyte of its own text where serde or the
    /// checks would repeat it is refused in a short message.
    #[test]
    fn a_hostile_record_is_refused_in_a_short_message() {
        let long = "x".repeat(1 << 20);
        let unreadable = RunRecord::from_json(&format!(r#"{{"format": 1, "{long}": 2}}"#));
        let unknown_variant = Continuation::from_json(&format!(
            r#"{{"format": "x", "version": 1, "step": 1, "record": {{"calls": [{{"outcome": {{"{long}": 1}}}}]}}}}"#
        ));
        for error in [unreadable.unwrap_err(), unknown_variant.unwrap_err()] {
            assert!(
                error.to_string().len() < 1024,
                "{} bytes",
                error.to_string().len()
            );
        }
        let wrong_guest = DurableError::GuestMismatch {
            recorded: shown(&long),
            current: "abc".into(),
        };
        assert!(wrong_guest.to_string().len() < 1024);
    }
}
