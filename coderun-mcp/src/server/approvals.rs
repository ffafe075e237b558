//! Approvals in `coderun mcp`: asking the client's user about a paused
//! run (an input-required result on MCP 2026-07-28, an elicitation request
//! before it), sealing the paused run into the handle the client echoes
//! back, and resuming it from that handle.

use std::sync::Arc;
use std::time::Duration;

use coderun_code_mode::{AbortSignal, Approval, ContentBlock, ToolResult};
use coderun_runtime::{CallOutcome, Continuation};
use rmcp::model::InputRequests;
use rmcp::model::{
    CallToolRequestParams, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    JsonObject,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer};
use serde_json::{Value, json};

use super::{CodeModeServer, RESUME_CODE, Work};
use crate::relay::{upstream_answers, upstream_requests};
use crate::sealed::{Holder, REFUSED};

/// How long a person has to answer an approval asked through elicitation;
/// the program is paused meanwhile, so no budget runs.
const APPROVAL_WAIT: Duration = Duration::from_secs(15 * 60);
/// The key of the approval question in an input-required result.
pub(super) const APPROVAL_INPUT: &str = "approval";
/// How much of a call's arguments an approval question quotes.
const QUESTION_ARGUMENT_BYTES: usize = 2000;

impl CodeModeServer {
    /// What `request` asks for: a retry answering an approval or an
    /// upstream's question (`requestState`, MCP 2026-07-28's multi
    /// round-trip requests) or `resume_code` resume the paused run their
    /// handle seals, any other call is a call of an offered tool. A handle
    /// that does not open is the uniform Invalid params error.
    pub(super) async fn work(
        &self,
        request: CallToolRequestParams,
        holder: &Holder,
    ) -> Result<Work, ErrorData> {
        if let Some(handle) = &request.request_state {
            let continuation = self.open(handle, holder).await?;
            // An upstream's question: the call is made again, with every
            // answer so far.
            if let Some(answers) = paused_payload(&continuation)
                .and_then(|payload| upstream_answers(payload, request.input_responses.as_ref()))
            {
                return Ok(Work::Resume(continuation, Approval::Approve, Some(answers)));
            }
            if !self.inner.approvals {
                return Ok(Work::Refuse(ToolResult::error(
                    "the paused run is not waiting for anything this server asks",
                )));
            }
            let answer = request
                .input_responses
                .as_ref()
                .and_then(|responses| responses.get(APPROVAL_INPUT))
                .and_then(|answer| serde_json::from_value::<ElicitResult>(answer.clone()).ok());
            let approval = match answer {
                Some(answer) => approval(answer),
                None => Approval::Reject(format!(
                    "the client's answer had no \"{APPROVAL_INPUT}\" elicitation result"
                )),
            };
            return Ok(Work::Resume(continuation, approval, None));
        }
        if !self.inner.approvals || request.name != RESUME_CODE {
            return Ok(Work::Call(request));
        }
        let arguments = request
            .arguments
            .map_or(Value::Object(JsonObject::new()), Value::Object);
        let (Some(id), Some(approve)) = (
            arguments.get("id").and_then(Value::as_str),
            arguments.get("approve").and_then(Value::as_bool),
        ) else {
            return Ok(Work::Refuse(ToolResult::error(format!(
                "{RESUME_CODE} expects {{\"id\": string, \"approve\": boolean, \"reason\"?: \
                 string}} (got {})",
                coderun_runtime::shorten(&arguments.to_string(), QUESTION_ARGUMENT_BYTES)
            ))));
        };
        let approval = if approve {
            Approval::Approve
        } else {
            let reason = arguments
                .get("reason")
                .and_then(Value::as_str)
                .unwrap_or("the user did not approve it");
            Approval::Reject(reason.to_owned())
        };
        let continuation = self.open(id, holder).await?;
        Ok(Work::Resume(continuation, approval, None))
    }

    /// The continuation `handle` seals for `holder`, opened on the
    /// blocking pool (it inflates and parses up to the record's cap).
    pub(super) async fn open(
        &self,
        handle: &str,
        holder: &Holder,
    ) -> Result<Box<Continuation>, ErrorData> {
        let inner = Arc::clone(&self.inner);
        let (handle, holder) = (handle.to_owned(), holder.clone());
        let opened = tokio::task::spawn_blocking(move || inner.sealer.open(&handle, &holder)).await;
        match opened {
            Ok(Ok(continuation)) => Ok(Box::new(continuation)),
            Ok(Err(reason)) => {
                tracing::info!("refused a paused run's state: {reason}");
                Err(ErrorData::invalid_params(REFUSED, None))
            }
            Err(_) => Err(ErrorData::internal_error(
                "opening the paused run's state stopped unexpectedly",
                None,
            )),
        }
    }

    /// `result` with its paused run, if it is one, taken out of the
    /// registry and sealed for `holder`: the handle replaces the run's id
    /// wherever the result names it. A run whose state cannot be sealed
    /// fails with the reason.
    pub(super) async fn seal_paused(&self, mut result: ToolResult, holder: &Holder) -> ToolResult {
        let Some((id, _)) = paused(&result) else {
            return result;
        };
        let Some(continuation) = self.inner.registry.take_continuation(&id) else {
            return ToolResult::error(format!("the paused run {id} was lost before it was sealed"));
        };
        let inner = Arc::clone(&self.inner);
        let holder = holder.clone();
        let sealed =
            tokio::task::spawn_blocking(move || inner.sealer.seal(&continuation, &holder)).await;
        let handle = match sealed {
            Ok(Ok(handle)) => handle,
            Ok(Err(error)) => return ToolResult::error(error.to_string()),
            Err(_) => return ToolResult::error("sealing the paused run stopped unexpectedly"),
        };
        crate::ops::Metrics::global().paused();
        for block in &mut result.content {
            if let ContentBlock::Text { text } = block {
                *text = text.replace(&id, &handle);
            }
        }
        if let Some(paused) = result
            .structured
            .as_mut()
            .and_then(|structured| structured.get_mut("paused"))
        {
            paused["id"] = Value::String(handle);
        }
        result
    }

    /// While `result` is a paused run, asks the client's user (a form
    /// elicitation request, for clients on protocols before 2026-07-28)
    /// whether to approve the call it paused at, and resumes the run with
    /// the answer. If asking fails, the client gets the paused result, to
    /// answer with `resume_code`.
    pub(super) async fn ask_approvals(
        &self,
        mut result: ToolResult,
        call_id: &str,
        peer: &Peer<RoleServer>,
        signal: &AbortSignal,
    ) -> ToolResult {
        while let Some((id, question)) = paused(&result) {
            let asked = peer
                .create_elicitation_with_timeout(
                    ElicitRequestParams::FormElicitationParams {
                        meta: None,
                        message: question,
                        requested_schema: approval_schema(),
                    },
                    Some(APPROVAL_WAIT),
                )
                .await;
            let approval = match asked {
                Ok(answer) => approval(answer),
                Err(error) => {
                    tracing::warn!(
                        call = %call_id,
                        "could not ask the client for approval ({error}); returning the paused run"
                    );
                    break;
                }
            };
            result = self
                .inner
                .registry
                .resume(call_id, &id, approval, signal.clone())
                .await;
        }
        result
    }
}

/// Who sent a request: the bearer token it presented and its HTTP session,
/// for requests that came over HTTP.
pub(super) fn holder_of(context: &RequestContext<RoleServer>) -> Holder {
    let Some(parts) = context.extensions.get::<http::request::Parts>() else {
        return Holder::default();
    };
    let authorization = parts
        .headers
        .get(http::header::AUTHORIZATION)
        .map(http::HeaderValue::as_bytes);
    let session = parts
        .headers
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    Holder::new(authorization, session)
}

/// The payload a continuation's paused call interrupted with.
fn paused_payload(continuation: &Continuation) -> Option<&Value> {
    let at = usize::try_from(continuation.step.checked_sub(1)?).ok()?;
    match &continuation.record.calls.get(at)?.outcome {
        CallOutcome::Interrupt(payload) => Some(payload),
        _ => None,
    }
}

/// The sealed handle of a paused `run_code` and the upstream's questions
/// it waits for, if `result` is one paused by an upstream's question.
pub(super) fn upstream_question(result: &ToolResult) -> Option<(String, InputRequests)> {
    let paused = result.structured.as_ref()?.get("paused")?;
    let requests = upstream_requests(paused.get("payload")?)?;
    Some((paused.get("id")?.as_str()?.to_owned(), requests))
}

/// The paused run's id and the question to ask about it, if `result` is a
/// paused `run_code`.
pub(super) fn paused(result: &ToolResult) -> Option<(String, String)> {
    let paused = result.structured.as_ref()?.get("paused")?;
    let id = paused.get("id")?.as_str()?.to_owned();
    let call = paused
        .get("call")
        .and_then(Value::as_str)
        .unwrap_or("a tool");
    let payload = paused.get("payload").cloned().unwrap_or(Value::Null);
    let arguments = payload.get("arguments").unwrap_or(&payload);
    let question = format!(
        "A program wants to call {call} with {}. Approve this call?",
        coderun_runtime::shorten(&arguments.to_string(), QUESTION_ARGUMENT_BYTES)
    );
    Some((id, question))
}

/// The approval a user's answer to [`approval_schema`] gives.
fn approval(answer: ElicitResult) -> Approval {
    match (answer.action, answer.content) {
        (ElicitationAction::Accept, Some(content))
            if content.get("approve") == Some(&Value::Bool(true)) =>
        {
            Approval::Approve
        }
        (ElicitationAction::Accept, content) => Approval::Reject(
            content
                .as_ref()
                .and_then(|content| content.get("reason"))
                .and_then(Value::as_str)
                .filter(|reason| !reason.is_empty())
                .unwrap_or("the user did not approve it")
                .to_owned(),
        ),
        (ElicitationAction::Decline, _) => Approval::Reject("the user declined".to_owned()),
        // Cancel, and any action a later protocol adds: not an approval.
        _ => Approval::Reject("the user dismissed the request".to_owned()),
    }
}

/// How a paused run's approval may be asked for, by the client's protocol
/// and capabilities.
#[derive(Clone, Copy)]
pub(super) enum Asking<'a> {
    /// Not at all: the paused result goes back, to answer with
    /// `resume_code`.
    No,
    /// By returning an input-required result (protocol 2026-07-28 and
    /// later), whose retry carries the answer.
    Retry,
    /// By an elicitation request to the client (earlier protocols).
    Request(&'a Peer<RoleServer>),
}

pub(super) fn approval_schema() -> ElicitationSchema {
    ElicitationSchema::builder()
        .required_bool("approve")
        .optional_string("reason")
        .build()
        .unwrap_or_else(|_| unreachable!("both properties exist"))
}

pub(super) fn resume_code_schema() -> JsonObject {
    let schema = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "The paused run's id, from run_code's result."},
            "approve": {"type": "boolean", "description": "Whether the user approved the call."},
            "reason": {"type": "string", "description": "Why not, when approve is false."}
        },
        "required": ["id", "approve"],
        "additionalProperties": false
    });
    match schema {
        Value::Object(schema) => schema,
        _ => unreachable!("an object literal"),
    }
}
