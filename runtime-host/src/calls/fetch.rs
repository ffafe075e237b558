//! The program's `fetch` calls: numbered, recorded and replayed as binding
//! calls are, answered by the run's egress (`crate::egress`) under its
//! network policy. A refusal is an outcome like any other (recorded, so
//! that a replay answers it the same way); only a full call table refuses
//! the call itself.

use futures::FutureExt;
use serde_json::Value;
use tracing::Instrument as _;

use super::{Arrival, Calls, Settled};
use crate::durable::{CallOutcome, Delivery};
use crate::egress::{self, FETCH_FUNCTION};
use crate::guest::{FetchRequest, StartedCall};
use crate::output::{self, Output};

impl Calls {
    pub(super) fn start_fetch(
        &mut self,
        request: FetchRequest,
        held: u32,
    ) -> wasmtime::Result<Result<StartedCall, String>> {
        if let Some(refusal) = self.no_room(held) {
            return Ok(Err(refusal));
        }
        // What the record keeps of the request: only a recording (or
        // replaying) run needs it.
        let (arguments, label) = if self.ledger.is_recording() {
            let arguments = egress::describe_request(&request);
            let label = egress::name_recorded(&arguments);
            (arguments, label)
        } else {
            (Value::Null, String::new())
        };
        let bytes = if arguments.is_null() {
            0
        } else {
            arguments.to_string().len()
        };
        let id = self.next_id;
        let delivery = self.ledger.start(
            id,
            ("", FETCH_FUNCTION, &|| label.clone()),
            &arguments,
            bytes,
        )?;
        self.next_id += 1;
        self.in_flight.insert(id);
        if let Delivery::Replayed { outcome, rank } = delivery {
            let settled = match outcome {
                CallOutcome::Ok(recorded) => match egress::split_outcome(recorded) {
                    Ok((head, body)) => {
                        self.egress.answered(id, Some((body, None)));
                        Settled::Value(head)
                    }
                    Err(message) => Settled::Error(message),
                },
                CallOutcome::Error(message) => Settled::Error(message),
                CallOutcome::Interrupt(payload) => Settled::Interrupt(payload),
                CallOutcome::Unsettled => Settled::Never,
            };
            self.replayed(id, settled, rank);
            return Ok(Ok(StartedCall { id, settled: None }));
        }
        // A span per request sent, a child of the run's (coderun mcp exports
        // them as traces): its method, URL and status, never a header.
        let span = tracing::info_span!(
            "fetch",
            http.request.method = %output::shorten(&request.method, 32),
            url.full = %output::shorten(&request.url, 2048),
            http.response.status_code = tracing::field::Empty,
        );
        match self.egress.start(id, request) {
            Ok(call) => {
                self.spawn(id, call.instrument(span).map(Arrival::Fetch).boxed());
                Ok(Ok(StartedCall { id, settled: None }))
            }
            Err(refusal) => {
                self.arrive(id, Arrival::Fetch(Err(refusal)))?;
                let settled = self.deliver_at_once(id)?;
                Ok(Ok(StartedCall { id, settled }))
            }
        }
    }

    /// A fetch's answer as the program gets it (its body kept for the
    /// guest to take), as the record keeps it, and its size there.
    pub(super) fn fetch_outcome(
        &mut self,
        id: u64,
        answer: egress::Answer,
    ) -> (Settled, Option<CallOutcome>, usize) {
        let recording = self.ledger.is_recording();
        match answer {
            Ok(response) => {
                let head = response.head.to_string();
                let recorded =
                    recording.then(|| CallOutcome::Ok(egress::recorded_response(&response)));
                // The body is kept in base64 in the record.
                let bytes = head.len() + response.body.len().div_ceil(3) * 4;
                self.egress
                    .answered(id, Some((response.body, response.turn)));
                (Settled::Value(head), recorded, bytes)
            }
            Err(message) => {
                self.egress.answered(id, None);
                let message = output::cap(message, Output::Error, self.max_error_bytes);
                let bytes = message.len();
                let recorded = recording.then(|| CallOutcome::Error(message.clone()));
                (Settled::Error(message), recorded, bytes)
            }
        }
    }
}
