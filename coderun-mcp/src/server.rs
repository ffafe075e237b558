//! The MCP server side of `coderun mcp`: the tools the registry's mode
//! offers, whatever the transport.

use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use std::time::Duration;

use coderun_code_mode::{
    AbortController, AbortSignal, Approval, ContentBlock, DispatchEvent, RUN_CODE, ToolCall,
    ToolRegistry, ToolResult,
};
use rmcp::model::ProgressToken;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationSchema, Implementation, InputRequest,
    InputRequests, InputRequiredResult, JsonObject, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;

use coderun_runtime::Continuation;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::progress::ProgressRoutes;
use super::sealed::{Holder, REFUSED, Sealer};
use super::{Gateway, ServeError};

const INSTRUCTIONS: &str = "coderun runs TypeScript programs that call this server's tools. \
Prefer one run_code call that chains the tool calls, filters their results and returns only \
what you need over many single tool calls; run_code's description declares every tool as \
TypeScript.";

/// The tool that answers a paused program, offered when a tool needs
/// approval.
pub const RESUME_CODE: &str = "resume_code";

/// How long a person has to answer an approval asked through elicitation;
/// the program is paused meanwhile, so no budget runs.
const APPROVAL_WAIT: Duration = Duration::from_secs(15 * 60);
/// The key of the approval question in an input-required result.
const APPROVAL_INPUT: &str = "approval";
/// How much of a call's arguments an approval question quotes.
const QUESTION_ARGUMENT_BYTES: usize = 2000;

const RESUME_CODE_DESCRIPTION: &str = "Resume a run_code program that paused because a tool call \
needs approval. Pass the paused run's id from run_code's result, and approve: true only if the \
user approved that call (with approve: false, the call rejects in the program with the reason). \
The result is run_code's: the program's output, a failure, or another pause.";

/// The MCP server: the wire tools of a gateway's registry, each call
/// executed through the registry.
#[derive(Clone)]
pub struct CodeModeServer {
    inner: Arc<Inner>,
}

struct Inner {
    registry: ToolRegistry,
    tools: Vec<rmcp::model::Tool>,
    calls: AtomicU64,
    /// Whether some tool needs approval (and `resume_code` is offered).
    approvals: bool,
    /// Whether each run's trace is logged.
    trace: bool,
    /// Where each reporting call's tool calls are announced.
    progress: Arc<ProgressRoutes>,
    /// Seals paused runs into the handles clients echo back, and opens them.
    sealer: Sealer,
}

/// What one call does.
enum Work {
    /// Calls an offered tool through the registry.
    Call(CallToolRequestParams),
    /// Resumes a paused run, opened from its handle, with the answer.
    Resume(Box<Continuation>, Approval),
    /// Nothing: the result says why.
    Refuse(ToolResult),
}

impl std::fmt::Debug for CodeModeServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeModeServer")
            .field("tools", &self.inner.tools.len())
            .finish_non_exhaustive()
    }
}

impl CodeModeServer {
    /// The server for `gateway`'s registry: its assembled tools, with the
    /// SDK section (and the note about unavailable upstreams) appended to
    /// `run_code`'s description. Paused runs go back to the client sealed
    /// by `sealer`.
    pub fn new(gateway: &Gateway, sealer: Sealer) -> Result<Self, ServeError> {
        let assembly = gateway.registry().assemble()?;
        let sdk = assembly.sdk_section.unwrap_or_default();
        let mut tools: Vec<rmcp::model::Tool> = assembly
            .tools
            .into_iter()
            .map(|tool| {
                let mut description = tool.description;
                if tool.name == RUN_CODE {
                    description.push_str("\n\n");
                    description.push_str(&sdk);
                    description.push_str(&gateway.unavailable_note());
                }
                let schema = match tool.input_schema {
                    Value::Object(schema) => schema,
                    // MCP requires an object schema; any other accepts anything.
                    _ => JsonObject::from_iter([("type".to_owned(), Value::from("object"))]),
                };
                // Mode both relists an upstream tool as its server listed
                // it (title, output schema, annotations), under its name here.
                let listed = gateway.listed_tool(&tool.name).cloned();
                let mut wire = rmcp::model::Tool::new(tool.name, description, schema);
                if let Some(listed) = listed {
                    wire.title = listed.title;
                    wire.output_schema = listed.output_schema;
                    wire.annotations = listed.annotations;
                    wire.icons = listed.icons;
                }
                wire
            })
            .collect();
        let approvals = !gateway.gated_tools().is_empty();
        if approvals {
            tools.push(rmcp::model::Tool::new(
                RESUME_CODE,
                RESUME_CODE_DESCRIPTION,
                resume_code_schema(),
            ));
        }
        let progress = Arc::new(ProgressRoutes::default());
        let mut registry = gateway.registry().clone();
        let routes = Arc::clone(&progress);
        registry.event_sink(move |event: DispatchEvent| routes.route(&event));
        Ok(Self {
            inner: Arc::new(Inner {
                registry,
                tools,
                calls: AtomicU64::new(0),
                approvals,
                trace: gateway.traces(),
                progress,
                sealer,
            }),
        })
    }

    /// The tools this server lists.
    pub fn tools(&self) -> &[rmcp::model::Tool] {
        &self.inner.tools
    }

    /// Executes one call through the registry; the client's cancellation
    /// (`cancelled`) aborts it, and the call still runs to its end (a
    /// program ends as `abort`, its upstream calls are cancelled). With a
    /// progress token, its progress is reported meanwhile (see `progress.rs`).
    async fn execute(
        &self,
        name: &str,
        work: Work,
        cancelled: CancellationToken,
        asking: Asking<'_>,
        progress: Option<(ProgressToken, Peer<RoleServer>)>,
        holder: &Holder,
    ) -> ToolResult {
        let n = self.inner.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let id = format!("mcp-{n}");
        let reporting = progress.map(|(token, peer)| self.inner.progress.report(&id, token, peer));
        let controller = AbortController::new();
        let signal = controller.signal();
        let work = async {
            let result = self.dispatch(&id, work, signal.clone()).await;
            let result = match asking {
                Asking::Request(peer) => self.ask_approvals(result, &id, peer, &signal).await,
                Asking::Retry | Asking::No => result,
            };
            self.seal_paused(result, holder).await
        };
        let mut execution = pin!(work);
        let result = tokio::select! {
            result = &mut execution => result,
            () = cancelled.cancelled() => {
                tracing::info!(call = %id, tool = %name, "the client cancelled the call");
                controller.abort("the client cancelled the request");
                execution.await
            }
        };
        if let Some(reporting) = reporting {
            reporting.finish().await;
        }
        if self.inner.trace
            && let Some(trace) = &result.trace
        {
            match serde_json::to_string(trace) {
                Ok(line) => tracing::info!(target: "coderun::trace", "{line}"),
                Err(error) => tracing::warn!("the trace of {id} could not be written: {error}"),
            }
        }
        let text = result.text_content();
        let first_line = text.lines().next().unwrap_or_default();
        if result.is_error {
            tracing::info!(call = %id, tool = %name, "failed: {first_line}");
        } else {
            tracing::info!(call = %id, tool = %name, "done");
        }
        result
    }

    /// What `request` asks for: a retry answering an approval
    /// (`requestState`, MCP 2026-07-28's multi round-trip requests) or
    /// `resume_code` resume the paused run their handle seals, any other
    /// call is a call of an offered tool. A handle that does not open is
    /// the uniform Invalid params error.
    async fn work(
        &self,
        request: CallToolRequestParams,
        holder: &Holder,
    ) -> Result<Work, ErrorData> {
        if !self.inner.approvals {
            return Ok(Work::Call(request));
        }
        if let Some(handle) = &request.request_state {
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
            let continuation = self.open(handle, holder).await?;
            return Ok(Work::Resume(continuation, approval));
        }
        if request.name != RESUME_CODE {
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
        Ok(Work::Resume(continuation, approval))
    }

    /// The continuation `handle` seals for `holder`, opened on the
    /// blocking pool (it inflates and parses up to the record's cap).
    async fn open(&self, handle: &str, holder: &Holder) -> Result<Box<Continuation>, ErrorData> {
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

    /// One call through the registry: a tool's, or a paused run resumed.
    async fn dispatch(&self, id: &str, work: Work, signal: AbortSignal) -> ToolResult {
        match work {
            Work::Call(request) => {
                let arguments = request
                    .arguments
                    .map_or(Value::Object(JsonObject::new()), Value::Object);
                let call = ToolCall::new(id.to_owned(), request.name.to_string(), arguments);
                self.inner.registry.execute(call, signal).await
            }
            Work::Resume(continuation, approval) => {
                self.inner
                    .registry
                    .resume_continuation(id, *continuation, approval, signal)
                    .await
            }
            Work::Refuse(result) => result,
        }
    }

    /// `result` with its paused run, if it is one, taken out of the
    /// registry and sealed for `holder`: the handle replaces the run's id
    /// wherever the result names it. A run whose state cannot be sealed
    /// fails with the reason.
    async fn seal_paused(&self, mut result: ToolResult, holder: &Holder) -> ToolResult {
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
    async fn ask_approvals(
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
fn holder_of(context: &RequestContext<RoleServer>) -> Holder {
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

/// The paused run's id and the question to ask about it, if `result` is a
/// paused `run_code`.
fn paused(result: &ToolResult) -> Option<(String, String)> {
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
enum Asking<'a> {
    /// Not at all: the paused result goes back, to answer with
    /// `resume_code`.
    No,
    /// By returning an input-required result (protocol 2026-07-28 and
    /// later), whose retry carries the answer.
    Retry,
    /// By an elicitation request to the client (earlier protocols).
    Request(&'a Peer<RoleServer>),
}

fn approval_schema() -> ElicitationSchema {
    ElicitationSchema::builder()
        .required_bool("approve")
        .optional_string("reason")
        .build()
        .unwrap_or_else(|_| unreachable!("both properties exist"))
}

fn resume_code_schema() -> JsonObject {
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

/// A result as MCP content: text as text, media as real image, audio and
/// resource blocks, and the structured value (for `run_code`, within the
/// output budget with the text).
fn wire_result(result: ToolResult) -> CallToolResult {
    use rmcp::model::{ContentBlock as Wire, ResourceContents};
    let content = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text } => Wire::text(text.clone()),
            ContentBlock::Image { data, mime_type } => Wire::image(data.clone(), mime_type.clone()),
            ContentBlock::Audio { data, mime_type } => Wire::audio(data.clone(), mime_type.clone()),
            ContentBlock::Resource {
                uri,
                mime_type,
                text: Some(text),
                ..
            } => Wire::resource(ResourceContents::TextResourceContents {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: text.clone(),
                meta: None,
            }),
            ContentBlock::Resource {
                uri,
                mime_type,
                blob: Some(blob),
                ..
            } => Wire::resource(ResourceContents::BlobResourceContents {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                blob: blob.clone(),
                meta: None,
            }),
            other => Wire::text(other.to_text()),
        })
        .collect();
    let mut wire = if result.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    wire.structured_content = result.structured;
    wire
}

impl ServerHandler for CodeModeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("coderun", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self
            .inner
            .tools
            .iter()
            .any(|tool| tool.name == request.name)
        {
            // MCP: an unknown tool is a protocol error, Invalid params.
            let offered: Vec<&str> = self.inner.tools.iter().map(|tool| &*tool.name).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}; the tools offered are: {}",
                    request.name,
                    offered.join(", ")
                ),
                None,
            ));
        }
        let name = request.name.clone();
        let holder = holder_of(&context);
        let work = self.work(request, &holder).await?;
        let can_ask = self.inner.approvals
            && context
                .client_capabilities()
                .and_then(|capabilities| capabilities.elicitation)
                // A capability naming neither mode means form (MCP 2025-06-18).
                .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none());
        let retries = context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        let asking = match (can_ask, retries) {
            (false, _) => Asking::No,
            (true, true) => Asking::Retry,
            (true, false) => Asking::Request(&context.peer),
        };
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| (token, context.peer.clone()));
        let result = self
            .execute(&name, work, context.ct.clone(), asking, progress, &holder)
            .await;
        if let Asking::Retry = asking
            && let Some((id, question)) = paused(&result)
        {
            let ask = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: question,
                requested_schema: approval_schema(),
            });
            let requests =
                InputRequests::from([(APPROVAL_INPUT.to_owned(), InputRequest::Elicitation(ask))]);
            return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                Some(requests),
                Some(id),
            )));
        }
        let mut wire = wire_result(result);
        // An error result is not the tool's output: its structured value (a
        // refusal's `needs_approval`) would break the output schema the
        // tool declares, which clients check it against.
        if wire.is_error == Some(true)
            && self
                .inner
                .tools
                .iter()
                .any(|tool| tool.name == name && tool.output_schema.is_some())
        {
            wire.structured_content = None;
        }
        Ok(CallToolResponse::Complete(wire))
    }
}
