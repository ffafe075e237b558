//! Questions an upstream asks during a program's call, for a client that
//! takes no requests from its server (MCP 2026-07-28, without tasks). The
//! program pauses at the call, as for an approval; the question goes back
//! as an input request of `run_code`'s input-required result, its
//! `requestState` the sealed paused run; and the client's retry resumes
//! the run, dispatching the call again with the answer at hand, which
//! coderun gives the upstream when it asks the same question again.
//!
//! The questions of one upstream call are keyed `input-1`, `input-2`, … in
//! the order the upstream asks them. A call that asks a second question
//! after the first was answered pauses again; the paused run carries the
//! answers given so far, so that every retry replays them.
//!
//! The upstream runs the tool again on the retry: what it did before it
//! asked, it does twice (MCP's multi round-trip requests have servers work
//! this way too).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use rmcp::model::{InputRequest, InputRequests, InputResponses};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// The key of a pause's payload that marks it as an upstream's question.
pub(crate) const UPSTREAM_INPUT: &str = "upstreamInput";

/// The answers and the open question of one upstream call.
#[derive(Debug, Default)]
pub(crate) struct CallInputs {
    /// The client's answers, by key, from earlier rounds.
    answers: InputResponses,
    /// How many questions the upstream asked.
    asked: AtomicU64,
    /// The first question without an answer, and its key.
    open: Mutex<Option<(String, Value)>>,
    /// Signalled when a question has no answer: the call pauses.
    paused: Notify,
}

impl CallInputs {
    /// A call whose upstream's questions `answers` answers, by key.
    pub(crate) fn new(answers: InputResponses) -> Self {
        Self {
            answers,
            ..Self::default()
        }
    }

    /// The answer to the next question the upstream asks, `request`: the
    /// client's, if an earlier round gave one; else `None`, and the call
    /// pauses.
    pub(crate) fn answer(&self, request: &InputRequest) -> Option<Value> {
        let key = format!("input-{}", self.asked.fetch_add(1, Ordering::Relaxed) + 1);
        if let Some(answer) = self.answers.get(&key) {
            return Some(answer.clone());
        }
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open.is_none() {
            *open = Some((key, serde_json::to_value(request).unwrap_or(Value::Null)));
        }
        // A permit is stored when the call is not waiting yet.
        self.paused.notify_one();
        None
    }

    /// Resolves when a question went unanswered.
    pub(crate) async fn paused(&self) {
        self.paused.notified().await;
    }

    /// What the program pauses with: the upstream, its tool, the answers
    /// given so far and the open question.
    pub(crate) fn payload(&self, upstream: &str, tool: &str) -> Value {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let requests: BTreeMap<&str, &Value> = open
            .iter()
            .map(|(key, request)| (key.as_str(), request))
            .collect();
        json!({ UPSTREAM_INPUT: {
            "upstream": upstream,
            "tool": tool,
            "answers": self.answers,
            "requests": requests,
        }})
    }
}

/// The answers a paused run's payload carries and `responses` adds, if the
/// payload is an upstream's question.
pub(crate) fn answers(
    payload: &Value,
    responses: Option<&InputResponses>,
) -> Option<InputResponses> {
    let input = payload.get(UPSTREAM_INPUT)?;
    let mut answers: InputResponses = input
        .get("answers")
        .and_then(|answers| serde_json::from_value(answers.clone()).ok())
        .unwrap_or_default();
    if let Some(responses) = responses {
        answers.extend(
            responses
                .iter()
                .map(|(key, value)| (key.clone(), value.clone())),
        );
    }
    Some(answers)
}

/// The open questions of a paused run's payload, if it is an upstream's
/// question.
pub(crate) fn requests(payload: &Value) -> Option<InputRequests> {
    let requests = payload.get(UPSTREAM_INPUT)?.get("requests")?;
    serde_json::from_value(requests.clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ElicitRequest, ElicitRequestParams, ElicitationSchema};

    fn question(message: &str) -> InputRequest {
        InputRequest::Elicitation(ElicitRequest::new(
            ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: message.to_owned(),
                requested_schema: ElicitationSchema::builder()
                    .required_string("name")
                    .build()
                    .expect("a schema"),
            },
        ))
    }

    #[tokio::test]
    async fn an_unanswered_question_pauses_and_a_later_round_answers_it() {
        let first = CallInputs::default();
        assert_eq!(first.answer(&question("Who?")), None);
        first.paused().await;
        let payload = first.payload("fixture", "ask");
        let open = requests(&payload).expect("the question");
        assert_eq!(open.keys().collect::<Vec<_>>(), ["input-1"]);

        let given = answers(
            &payload,
            Some(&[("input-1".to_owned(), json!({"action": "accept"}))].into()),
        )
        .expect("answers");
        let second = CallInputs::new(given);
        assert_eq!(
            second.answer(&question("Who?")),
            Some(json!({"action": "accept"}))
        );
        // A second question pauses again, the first answer kept.
        assert_eq!(second.answer(&question("And why?")), None);
        let payload = second.payload("fixture", "ask");
        assert_eq!(
            requests(&payload)
                .expect("the question")
                .keys()
                .collect::<Vec<_>>(),
            ["input-2"]
        );
        assert_eq!(answers(&payload, None).expect("answers").len(), 1);
        assert_eq!(answers(&json!({"tool": "x"}), None), None);
    }
}
