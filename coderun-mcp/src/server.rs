//! The MCP server side of `coderun mcp`: the tools the registry's mode
//! offers, whatever the transport.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use coderun_code_mode::{Approval, DispatchEvent, RUN_CODE, ToolRegistry, ToolResult};
use coderun_runtime::Continuation;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestMethod,
    CompleteRequestParams, CompleteResult, GetPromptRequestMethod, GetPromptRequestParams,
    GetPromptResponse, GetTaskParams, GetTaskResult, Implementation, InputResponses, JsonObject,
    ListPromptsRequestMethod, ListPromptsResult, ListResourceTemplatesRequestMethod,
    ListResourceTemplatesResult, ListResourcesRequestMethod, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestMethod, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, SubscribeRequestMethod,
    SubscribeRequestParams, UnsubscribeRequestMethod, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::task_manager::TaskManager;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

mod approvals;
mod call;
mod tasks;
mod wire;

use approvals::resume_code_schema;

use super::logging::SessionLevel;
use super::passthrough::Passthrough;
use super::progress::ProgressRoutes;
use super::relay::Relay;
use super::sealed::Sealer;
use super::shutdown::Shutdown;
use super::{Gateway, ServeError};

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
}

impl CodeModeServer {
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
        self.call(request, context).await
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
