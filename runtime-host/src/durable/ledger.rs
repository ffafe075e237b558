//! The ledger of one run's binding calls: what a replay answers from, what
//! a recording run writes, and the checks that a replaying program makes
//! the calls its record holds.

use serde_json::Value;

use super::{CallOutcome, RecordedCall};
use crate::output::shorten;

/// How much of an argument a divergence message quotes.
const QUOTED_ARGUMENT_BYTES: usize = 200;

/// The program did not make the calls its record holds.
#[derive(Debug, thiserror::Error)]
#[error("the replay diverged from the record at call {step}: {what}")]
pub(crate) struct Divergence {
    pub(crate) step: u64,
    pub(crate) what: String,
}

/// A binding asked to interrupt the run at this step.
#[derive(Debug, thiserror::Error)]
#[error("the run was interrupted at call {step}")]
pub(crate) struct Interruption {
    pub(crate) step: u64,
    pub(crate) payload: Value,
}

/// A recording run's ledger outgrew `config.max_record_bytes`.
#[derive(Debug, thiserror::Error)]
#[error(
    "the run's record reached config.max_record_bytes ({max_bytes}): a recorded or resumable \
     run keeps every binding argument and result; make fewer or smaller calls"
)]
pub(crate) struct RecordOverflow {
    pub(crate) max_bytes: usize,
}

/// What the ledger says about a call being started.
pub(crate) enum Delivery {
    /// The record answers it: deliver this outcome, as the `rank`-th
    /// settlement among the replayed calls (`None`: it never settled).
    Replayed {
        outcome: CallOutcome,
        rank: Option<u64>,
    },
    /// Call the binding.
    Live,
}

pub(crate) struct Ledger {
    /// The recorded calls a replay answers from, by step − 1.
    replay: Vec<RecordedCall>,
    /// Whether calls past the replayed ones go live (a resume) or diverge
    /// (a replay).
    live_after_replay: bool,
    /// This run's calls, by step − 1, when recording.
    calls: Option<Vec<RecordedCall>>,
    bytes: usize,
    max_bytes: usize,
    delivered: u64,
}

impl Ledger {
    /// A live run's ledger: it records when `recording`.
    pub(crate) fn live(recording: bool, max_bytes: usize) -> Self {
        Self {
            replay: Vec::new(),
            live_after_replay: true,
            calls: recording.then(Vec::new),
            bytes: 0,
            max_bytes,
            delivered: 0,
        }
    }

    /// A ledger answering from `replay`, then going live (`resume`) or
    /// diverging. It always records.
    pub(crate) fn replaying(replay: Vec<RecordedCall>, resume: bool, max_bytes: usize) -> Self {
        Self {
            replay,
            live_after_replay: resume,
            calls: Some(Vec::new()),
            bytes: 0,
            max_bytes,
            delivered: 0,
        }
    }

    pub(crate) fn is_recording(&self) -> bool {
        self.calls.is_some()
    }

    /// Call `step` starts, made by `label` with `arguments` (`bytes` of
    /// JSON): checks it against the record and records it. The label is
    /// written only for a divergence's message.
    pub(crate) fn start(
        &mut self,
        step: u64,
        (namespace, function, label): (&str, &str, &dyn Fn() -> String),
        arguments: &Value,
        bytes: usize,
    ) -> Result<Delivery, wasmtime::Error> {
        let replayed = step
            .checked_sub(1)
            .and_then(|index| self.replay.get(index as usize));
        let delivery = match replayed {
            Some(recorded) => {
                if recorded.namespace != namespace || recorded.function != function {
                    let label = label();
                    return Err(divergence(
                        step,
                        format!(
                            "the program {} where the record has {}",
                            if namespace.is_empty() {
                                format!("made {label}")
                            } else {
                                format!("called {label}")
                            },
                            name_of(recorded)
                        ),
                    ));
                }
                if &recorded.arguments != arguments && namespace.is_empty() {
                    let label = label();
                    let what = if label == name_of(recorded) {
                        format!(
                            "the program made {label} with other headers, redirect mode or \
                             body than the record's"
                        )
                    } else {
                        format!(
                            "the program made {label} where the record has {}",
                            name_of(recorded)
                        )
                    };
                    return Err(divergence(step, what));
                }
                if &recorded.arguments != arguments {
                    let label = label();
                    return Err(divergence(
                        step,
                        format!(
                            "the program called {label} with {} where the record has {}",
                            quote(arguments),
                            quote(&recorded.arguments)
                        ),
                    ));
                }
                Delivery::Replayed {
                    outcome: recorded.outcome.clone(),
                    rank: recorded.delivered,
                }
            }
            None if self.live_after_replay => Delivery::Live,
            None => {
                let label = label();
                return Err(divergence(
                    step,
                    format!(
                        "the program {} {label}, but the record has only {} call(s)",
                        if namespace.is_empty() {
                            "made"
                        } else {
                            "called"
                        },
                        self.replay.len()
                    ),
                ));
            }
        };
        if let Some(calls) = &mut self.calls {
            self.bytes = self.bytes.saturating_add(bytes);
            if self.bytes > self.max_bytes {
                return Err(RecordOverflow {
                    max_bytes: self.max_bytes,
                }
                .into());
            }
            let outcome = match &delivery {
                Delivery::Replayed { outcome, .. } => outcome.clone(),
                Delivery::Live => CallOutcome::Unsettled,
            };
            calls.push(RecordedCall {
                step,
                namespace: namespace.to_owned(),
                function: function.to_owned(),
                arguments: arguments.clone(),
                outcome,
                delivered: None,
            });
        }
        Ok(delivery)
    }

    /// Live call `step` settled with `outcome` (`bytes` of it).
    pub(crate) fn settled(
        &mut self,
        step: u64,
        outcome: CallOutcome,
        bytes: usize,
    ) -> Result<(), RecordOverflow> {
        let Some(call) = self.call(step) else {
            return Ok(());
        };
        call.outcome = outcome;
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > self.max_bytes {
            return Err(RecordOverflow {
                max_bytes: self.max_bytes,
            });
        }
        Ok(())
    }

    /// The program was given call `step`'s outcome.
    pub(crate) fn delivered(&mut self, step: u64) {
        self.delivered += 1;
        let rank = self.delivered;
        if let Some(call) = self.call(step) {
            call.delivered = Some(rank);
        }
    }

    /// Whether every recorded call was made; the divergence if not.
    pub(crate) fn finish(&self, made: u64) -> Result<(), Divergence> {
        let recorded = self.replay.len() as u64;
        if made < recorded {
            return Err(Divergence {
                step: made + 1,
                what: format!(
                    "the program finished after {made} call(s), but the record has {recorded}"
                ),
            });
        }
        Ok(())
    }

    /// This run's calls, when it recorded.
    pub(crate) fn into_calls(self) -> Option<Vec<RecordedCall>> {
        self.calls
    }

    fn call(&mut self, step: u64) -> Option<&mut RecordedCall> {
        let index = usize::try_from(step.checked_sub(1)?).ok()?;
        self.calls.as_mut()?.get_mut(index)
    }
}

/// How a divergence names a recorded call: `tools.search`, or a fetch's
/// method and URL.
fn name_of(call: &RecordedCall) -> String {
    if call.namespace.is_empty() {
        crate::egress::name_recorded(&call.arguments)
    } else {
        crate::bindings::property_access(&call.namespace, &call.function)
    }
}

fn divergence(step: u64, what: String) -> wasmtime::Error {
    Divergence { step, what }.into()
}

fn quote(value: &Value) -> String {
    shorten(&value.to_string(), QUOTED_ARGUMENT_BYTES)
}
