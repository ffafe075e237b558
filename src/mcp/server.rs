//! The MCP server side of `coderun mcp`: the tools the registry's mode
//! offers, served over stdio or streamable HTTP.

use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context as _;
use code_mode::{AbortController, ContentBlock, RUN_CODE, ToolCall, ToolRegistry, ToolResult};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::Gateway;

const INSTRUCTIONS: &str = "coderun runs TypeScript programs that call this server's tools. \
Prefer one run_code call that chains the tool calls, filters their results and returns only \
what you need over many single tool calls; run_code's description declares every tool as \
TypeScript.";

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
    /// `run_code`'s description.
    pub fn new(gateway: &Gateway) -> anyhow::Result<Self> {
        let assembly = gateway.registry().assemble()?;
        let sdk = assembly.sdk_section.unwrap_or_default();
        let tools = assembly
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
                rmcp::model::Tool::new(tool.name, description, schema)
            })
            .collect();
        Ok(Self {
            inner: Arc::new(Inner {
                registry: gateway.registry().clone(),
                tools,
                calls: AtomicU64::new(0),
            }),
        })
    }

    /// The tools this server lists.
    pub fn tools(&self) -> &[rmcp::model::Tool] {
        &self.inner.tools
    }

    /// Executes one call through the registry; the client's cancellation
    /// (`cancelled`) aborts it, and the call still runs to its end (a
    /// program ends as `abort`, its upstream calls are cancelled).
    async fn execute(
        &self,
        request: CallToolRequestParams,
        cancelled: CancellationToken,
    ) -> ToolResult {
        let n = self.inner.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let id = format!("mcp-{n}");
        let arguments = request
            .arguments
            .map_or(Value::Object(JsonObject::new()), Value::Object);
        let name = request.name.to_string();
        let controller = AbortController::new();
        let call = ToolCall::new(id.clone(), name.clone(), arguments);
        let mut execution = pin!(self.inner.registry.execute(call, controller.signal()));
        let result = tokio::select! {
            result = &mut execution => result,
            () = cancelled.cancelled() => {
                tracing::info!(call = %id, tool = %name, "the client cancelled the call");
                controller.abort("the client cancelled the request");
                execution.await
            }
        };
        let text = result.text_content();
        let first_line = text.lines().next().unwrap_or_default();
        if result.is_error {
            tracing::info!(call = %id, tool = %name, "failed: {first_line}");
        } else {
            tracing::info!(call = %id, tool = %name, "done");
        }
        result
    }
}

fn wire_result(result: ToolResult) -> CallToolResult {
    let content = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text } => rmcp::model::ContentBlock::text(text.clone()),
            other => rmcp::model::ContentBlock::text(other.to_text()),
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
        let result = self.execute(request, context.ct.clone()).await;
        Ok(CallToolResponse::Complete(wire_result(result)))
    }
}

/// Serves `server` over stdin/stdout until the client disconnects.
pub async fn serve_stdio(server: CodeModeServer) -> anyhow::Result<()> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .context("starting the MCP server on stdio")?;
    running.waiting().await.context("serving MCP on stdio")?;
    Ok(())
}

/// Serves `server` over streamable HTTP at `http://<addr>/mcp` until
/// `shutdown` fires. Prints the address it listens on to stderr (useful with
/// port 0).
pub async fn serve_http(
    server: CodeModeServer,
    addr: SocketAddr,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let local = listener.local_addr().context("reading the bound address")?;
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = shutdown.child_token();
    if !local.ip().is_loopback() {
        // The default accepts only loopback Host headers (against DNS
        // rebinding); a server bound elsewhere must accept its own address.
        config.allowed_hosts.push(local.ip().to_string());
        tracing::warn!(
            "serving on a non-loopback address, {local}: anyone who can reach it can run programs"
        );
    }
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    eprintln!("coderun mcp: serving streamable HTTP at http://{local}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
        .context("serving MCP over HTTP")?;
    Ok(())
}
