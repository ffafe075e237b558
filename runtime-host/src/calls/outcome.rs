//! A live binding call's result as the program gets it and as the record
//! keeps it (a fetch's is `fetch.rs`'s).

use super::{Calls, Settled};
use crate::bindings::BindingResult;
use crate::durable::CallOutcome;
use crate::output::{self, Output};

impl Calls {
    /// A binding's result as the program gets it, as the record keeps it,
    /// and its size there.
    pub(super) fn binding_outcome(
        &self,
        result: BindingResult,
    ) -> (Settled, Option<CallOutcome>, usize) {
        let recording = self.ledger.is_recording();
        match result {
            Ok(value) => {
                let json = value.to_string();
                let bytes = json.len();
                (
                    Settled::Value(json),
                    recording.then_some(CallOutcome::Ok(value)),
                    bytes,
                )
            }
            Err(error) => match error.interrupt_payload() {
                Some(payload) if recording => {
                    let bytes = payload.to_string().len();
                    let recorded = CallOutcome::Interrupt(payload.clone());
                    (Settled::Interrupt(payload.clone()), Some(recorded), bytes)
                }
                Some(payload) => (
                    Settled::Error(output::cap(
                        format!(
                            "the call asked to interrupt the run ({payload}), but this run cannot \
                             be resumed: the host must record it (CodeRunRequest::record)"
                        ),
                        Output::Error,
                        self.max_error_bytes,
                    )),
                    None,
                    0,
                ),
                None => {
                    let message = output::cap(
                        error.message().to_owned(),
                        Output::Error,
                        self.max_error_bytes,
                    );
                    let bytes = message.len();
                    let recorded = recording.then(|| CallOutcome::Error(message.clone()));
                    (Settled::Error(message), recorded, bytes)
                }
            },
        }
    }
}
