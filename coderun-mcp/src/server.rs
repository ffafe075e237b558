//! The MCP server side of `coderun mcp`: the tools the registry's mode
//! offers, whatever the transport.

use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use coderun_code_mode::{
    AbortController, AbortSignal, Approval, ContentBlock, DispatchEvent, RUN_CODE, ToolCall,
    ToolRegistry, ToolResult,
};
use rmcp::model::{CacheScope, InputResponses};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitRequest, ElicitRequestParams,
    Implementation, InputRequest, InputRequests, InputRequiredResult, JsonObject, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::model::{
    CancelTaskParams, CreateTaskResult, GetTaskParams, GetTaskResult, UpdateTaskParams,
};
use rmcp::model::{
    CompleteRequestMethod, CompleteRequestParams, CompleteResult, GetPromptRequestMethod,
    GetPromptRequestParams, GetPromptResponse, ListPromptsRequestMethod, ListPromptsResult,
    ListResourceTemplatesRequestMethod, ListResourceTemplatesResult, ListResourcesRequestMethod,
    ListResourcesResult, ReadResourceRequestMethod, ReadResourceRequestParams,
    ReadResourceResponse, SubscribeRequestMethod, SubscribeRequestParams, UnsubscribeRequestMethod,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};

use coderun_runtime::Continuation;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

mod approvals;

use approvals::{
    APPROVAL_INPUT, Asking, approval_schema, holder_of, paused, resume_code_schema,
    upstream_question,
};

use super::logging::{SessionLevel, send_console_lines};
use super::ops::Metrics;
use super::passthrough::Passthrough;
use super::progress::ProgressRoutes;
use super::relay::{Caller, Relay};
use super::sealed::{Holder, Sealer};
use super::shutdown::Shutdown;
use super::traces;
use super::{Gateway, ServeError};
use rmcp::model::ErrorCode;
use tracing::Instrument as _;

const INSTRUCTIONS: &str = "coderun runs TypeScript programs that call this server's tools. \
Prefer one run_code call that chains the tool calls, filters their results and returns only \
what you need over many single tool calls; run_code's description declares every tool as \
TypeScript.";

/// The tool that answers a paused program, offered when a tool needs
/// approval.
pub const RESUME_CODE: &str = "resume_code";

/// The JSON-RPC error code (in the range reserved for servers) of a call
/// refused while the process drains: retrying it elsewhere is safe.
pub const DRAINING: i32 = -32001;
/// How long a client may cache `tools/list` (SEP-2549's cache hint).
const TOOLS_TTL_MS: u64 = 5 * 60 * 1000;
/// How long a task's answer is kept for the client to poll, and the
/// longest a task may run (a program's wall clock is shorter).
const TASK_TTL_MS: u64 = 60 * 60 * 1000;
/// Programs running as tasks at once; past it, a call runs as a plain
/// request.
const MAX_RUNNING_TASKS: usize = 256;

const RESUME_CODE_DESCRIPTION: &str = "Resume a run_code program that paused because a tool call \
needs approval. Pass the paused run's id from run_code's result, and approve: true only if the \
user approved that call (with approve: false, the call rejects in the program with the reason). \
The result is run_code's: the program's output, a failure, or another pause.";

/// The MCP server: the wire tools of a gateway's registry, each call
/// executed through the registry.
#[derive(Clone)]
pub struct CodeModeServer {
    inner: Arc<Inner>,
    /// The logging level this session's client set.
    level: Arc<SessionLevel>,
    /// This session's number, unique in the process.
    session: u64,
}

/// The number of the next session.
static SESSIONS: AtomicU64 = AtomicU64::new(1);

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
    /// Where upstreams' notifications and requests reach the client whose
    /// call they belong to.
    relay: Arc<Relay>,
    /// The upstreams' resources and prompts, when the mode offers the
    /// upstreams' own tools.
    passthrough: Option<Arc<Passthrough>>,
    /// The programs running as tasks, and the answers of those that ended.
    tasks: TaskManager,
    /// The process's shutdown, which a drain refuses new calls for.
    shutdown: Option<Shutdown>,
    /// Seals paused runs into the handles clients echo back, and opens them.
    sealer: Sealer,
}

/// What one call does.
enum Work {
    /// Calls an offered tool through the registry.
    Call(CallToolRequestParams),
    /// Resumes a paused run, opened from its handle, with the answer (and
    /// the client's answers to its paused call's upstream, if it asked).
    Resume(Box<Continuation>, Approval, Option<InputResponses>),
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
        let relay = Arc::clone(gateway.relay());
        let passthrough = gateway
            .registry()
            .get_mode()
            .offers_native_tools()
            .then(|| Arc::clone(gateway.passthrough()));
        let progress = Arc::clone(&relay.progress);
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
                relay,
                passthrough,
                tasks: TaskManager::new(),
                shutdown: None,
            }),
            level: Arc::default(),
            session: SESSIONS.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// This server, refusing new calls while `shutdown` drains and telling
    /// the calls it aborts that they may be retried. Call it before the
    /// server is shared (it does nothing after).
    pub fn draining_on(mut self, shutdown: &Shutdown) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.shutdown = Some(shutdown.clone());
        }
        self
    }

    /// The server for one more session (an HTTP session's own): the same
    /// tools and registry, and a logging level of its own.
    pub fn for_session(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            level: Arc::default(),
            session: SESSIONS.fetch_add(1, Ordering::Relaxed),
        }
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
        holder: &Holder,
        caller: Caller,
    ) -> ToolResult {
        let n = self.inner.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let id = format!("mcp-{n}");
        let metrics = Metrics::global();
        let _call = metrics.call_started();
        let in_flight = (!caller.native).then(|| metrics.run_started());
        // A call of an upstream's tool itself (mode both) gets the
        // upstream's progress under the client's token (see relay.rs);
        // run_code and resume_code get coderun's own (see progress.rs).
        let reporting = caller
            .progress
            .clone()
            .filter(|_| !caller.native)
            .map(|token| self.inner.progress.report(&id, token, caller.peer.clone()));
        let _entered = self.inner.relay.enter(&id, caller);
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
        let drain_over = self
            .inner
            .shutdown
            .as_ref()
            .map(Shutdown::drain_over)
            .unwrap_or_default();
        let result = tokio::select! {
            result = &mut execution => result,
            () = drain_over.cancelled() => {
                tracing::info!(call = %id, tool = %name, "the drain ended before the call");
                controller.abort(
                    "coderun mcp is shutting down (its drain ended before this call did) and \
                     aborted the call: retry it",
                );
                execution.await
            }
            () = cancelled.cancelled() => {
                tracing::info!(call = %id, tool = %name, "the client cancelled the call");
                let stopping = self.inner.shutdown.as_ref().and_then(Shutdown::reason);
                controller.abort(match stopping {
                    Some(reason) => format!(
                        "coderun mcp is shutting down ({reason}) and aborted the call: retry it"
                    ),
                    None => "the client cancelled the request".to_owned(),
                });
                execution.await
            }
        };
        if let Some(reporting) = reporting {
            reporting.finish().await;
        }
        if let (Some(_), Some(trace)) = (in_flight, &result.trace) {
            metrics.run_ended(&trace.outcome, trace.wall_time, trace.fuel_consumed);
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
            Work::Resume(continuation, approval, _) => {
                self.inner
                    .registry
                    .resume_continuation(id, *continuation, approval, signal)
                    .await
            }
            Work::Refuse(result) => result,
        }
    }
}

impl CodeModeServer {
    /// `result`, the answer to a call of `name`, as MCP's.
    fn wire(&self, name: &str, result: ToolResult) -> CallToolResult {
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
        wire
    }

    /// Runs `work` as a task (the Tasks extension, SEP-2663): the client
    /// gets the task at once and polls `tasks/get` for the answer, which
    /// may come after its request timeout; `tasks/cancel` aborts the run.
    /// What an upstream asks of the client meanwhile becomes the task's
    /// input requests. A paused run is the task's answer, resumed with
    /// `resume_code`.
    fn spawn_task(
        &self,
        name: String,
        work: Work,
        holder: Holder,
        mut caller: Caller,
    ) -> CallToolResponse {
        let server = self.clone();
        let options = TaskOptions::new()
            .with_ttl_ms(TASK_TTL_MS)
            .with_status_message(format!("{name} is running"));
        let task = self.inner.tasks.spawn(options, move |task| {
            Box::pin(async move {
                caller.task = Some(task.clone());
                caller.pausable = false;
                let cancelled = CancellationToken::new();
                let watcher = tokio::spawn({
                    let (task, cancelled) = (task.clone(), cancelled.clone());
                    async move {
                        task.cancelled().await;
                        cancelled.cancel();
                    }
                });
                let span = caller.span.clone();
                let result = server
                    .execute(&name, work, cancelled, Asking::No, &holder, caller)
                    .instrument(span)
                    .await;
                watcher.abort();
                if task.is_cancel_requested() {
                    return Err(TaskExit::Cancelled);
                }
                Ok(server.wire(&name, result))
            })
        });
        CallToolResponse::Task(CreateTaskResult::new(task))
    }

    /// The passthrough, or method-not-found for `M` when the mode offers
    /// no upstream tools (code mode offers only run_code).
    fn passthrough<M: rmcp::model::ConstString + Default>(
        &self,
    ) -> Result<&Passthrough, ErrorData> {
        self.inner
            .passthrough
            .as_deref()
            .ok_or_else(ErrorData::method_not_found::<M>)
    }
}

/// The log level a request's `_meta` asks for (MCP 2026-07-28).
#[allow(
    deprecated,
    reason = "MCP logging, deprecated after 2025-11-25: see logging.rs"
)]
fn request_log_level(context: &RequestContext<RoleServer>) -> Option<rmcp::model::LoggingLevel> {
    context.meta.log_level()
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
    #[allow(
        deprecated,
        reason = "MCP logging, deprecated after 2025-11-25: see logging.rs"
    )]
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .enable_tasks()
            .build();
        if let Some(passthrough) = &self.inner.passthrough {
            passthrough.declare(&mut capabilities);
        }
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("coderun", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    #[allow(
        deprecated,
        reason = "MCP logging, deprecated after 2025-11-25: see logging.rs"
    )]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.level.set(request.level);
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // A session of a mode that offers the upstreams' resources and
        // prompts hears when their lists change.
        if self.inner.passthrough.is_some() {
            self.inner.relay.listen(&context.peer);
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.passthrough::<ListResourcesRequestMethod>()?
            .list_resources()
            .await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.passthrough::<ListResourceTemplatesRequestMethod>()?
            .list_resource_templates()
            .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.passthrough::<ReadResourceRequestMethod>()?
            .read_resource(request)
            .await
            .map(ReadResourceResponse::Complete)
    }

    #[allow(
        deprecated,
        reason = "resources/subscribe, legacy after 2025-11-25: see passthrough.rs"
    )]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.passthrough::<SubscribeRequestMethod>()?
            .subscribe(request, self.session, &context.peer)
            .await
    }

    #[allow(
        deprecated,
        reason = "resources/unsubscribe, legacy after 2025-11-25: see passthrough.rs"
    )]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.passthrough::<UnsubscribeRequestMethod>()?
            .unsubscribe(request, self.session)
            .await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.passthrough::<ListPromptsRequestMethod>()?
            .list_prompts()
            .await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.passthrough::<GetPromptRequestMethod>()?
            .get_prompt(request)
            .await
            .map(GetPromptResponse::Complete)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.passthrough::<CompleteRequestMethod>()?
            .complete(request)
            .await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // The tools do not change while the process runs; private, as a
        // server behind a token may be one user's.
        let mut result =
            ListToolsResult::with_all_items(self.inner.tools.clone()).with_ttl_ms(TOOLS_TTL_MS);
        result.cache_scope = Some(CacheScope::Private);
        Ok(result)
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
        if self
            .inner
            .shutdown
            .as_ref()
            .is_some_and(Shutdown::is_draining)
        {
            return Err(ErrorData::new(
                ErrorCode(DRAINING),
                "coderun mcp is draining for shutdown and takes no new calls: retry the call \
                 (a load balancer sends it to another replica)",
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
        let native = name != RUN_CODE && name != RESUME_CODE;
        // The level log messages go out at: the request's own (MCP
        // 2026-07-28, `io.modelcontextprotocol/logLevel` in `_meta`), else
        // the one the session set.
        let level = match request_log_level(&context) {
            Some(level) => Arc::new(SessionLevel::at(level)),
            None => Arc::clone(&self.level),
        };
        if let Work::Resume(..) = &work {
            Metrics::global().resumed();
        }
        let resumed = match &work {
            Work::Resume(_, _, Some(answers)) => Some(Arc::new(Mutex::new(Some(answers.clone())))),
            _ => None,
        };
        let span = if native {
            tracing::info_span!("tool_call", tool = %name, trace_id = tracing::field::Empty)
        } else {
            tracing::info_span!("run_code", tool = %name, trace_id = tracing::field::Empty)
        };
        traces::adopt(&span, &context);
        traces::record_trace_id(&span);
        let caller = Caller {
            span: span.clone(),
            peer: context.peer.clone(),
            progress: context.meta.get_progress_token(),
            native,
            level: Arc::clone(&level),
            capabilities: context.client_capabilities(),
            stateless: retries,
            task: None,
            pausable: retries && !native,
            resumed,
        };
        // A program runs as a task when the client can poll one: its
        // answer then outlives the client's request timeout.
        if !caller.native
            && context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.supports_tasks())
            && self.inner.tasks.running_task_count() < MAX_RUNNING_TASKS
        {
            return Ok(self.spawn_task(name.to_string(), work, holder, caller));
        }
        let result = self
            .execute(&name, work, context.ct.clone(), asking, &holder, caller)
            .instrument(span)
            .await;
        // An upstream asked the client a question (MCP 2026-07-28, see
        // relay/inputs.rs): the program waits for the retry with the answer.
        if retries && let Some((handle, requests)) = upstream_question(&result) {
            return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                Some(requests),
                Some(handle),
            )));
        }
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
        if let Some(level) = level.get()
            && let Some(logs) = result
                .structured
                .as_ref()
                .and_then(|value| value.get("logs"))
        {
            send_console_lines(&context.peer, level, logs).await;
        }
        Ok(CallToolResponse::Complete(self.wire(&name, result)))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(
            self.inner.tasks.get_task(&request.task_id)?,
        ))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner
            .tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.tasks.cancel_task(&request.task_id)
    }
}
