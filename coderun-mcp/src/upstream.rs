//! One upstream MCP server: started (or connected to), its tools listed, and
//! each tool offered to Code Mode as a [`Tool`] whose handler forwards the
//! call.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use coderun_code_mode::{ContentBlock, Tool, ToolContext, ToolResult};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{Peer, RoleClient, ServiceError, ServiceExt as _};
use serde_json::Value;

mod listing;

pub use self::listing::ListingCaps;
mod stderr;

use self::stderr::{StderrTail, forward_stderr};
use super::config::{ServerSpec, ServerTimeouts};
use super::jsonrpc::kind;
use super::process_group::{ProcessGroups, TERMINATE_GRACE};
use super::relay::{CallInputs, Relay, Tap, UpstreamClient};
use tracing::Instrument as _;

/// Why an upstream could not be used. Its text shows at most
/// [`TARGET_SHOWN`] bytes of the command line or URL, so that the reason
/// (which the "Unavailable" note cuts at a few hundred bytes) stays in it.
#[derive(Debug, thiserror::Error)]
#[error("upstream {name:?} ({}) {reason}", coderun_runtime::shorten(.target, TARGET_SHOWN))]
pub struct UpstreamError {
    /// The upstream's name.
    pub name: String,
    /// How it is reached: its command line or URL.
    pub target: String,
    /// What went wrong, with the end of its stderr when there is any.
    pub reason: String,
}

/// The bytes of an upstream's command line or URL its error shows.
const TARGET_SHOWN: usize = 80;

/// A connected upstream server and the tools it listed.
pub struct Upstream {
    name: String,
    service: RunningService<RoleClient, UpstreamClient>,
    tools: Vec<rmcp::model::Tool>,
    skipped: Vec<String>,
    stderr: StderrTail,
    relay: Arc<Relay>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("name", &self.name)
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

impl Upstream {
    /// Starts or connects to the upstream `name`, completes the MCP
    /// handshake and lists its tools (every page), all within `timeout`. A
    /// started process joins `groups`, which stop it; cancelling the
    /// connection leaves it there.
    pub(crate) async fn connect(
        name: &str,
        spec: &ServerSpec,
        timeout: Duration,
        caps: ListingCaps,
        groups: &ProcessGroups,
        relay: &Arc<Relay>,
    ) -> Result<Upstream, UpstreamError> {
        let client = UpstreamClient::new(name, relay);
        let fail = |reason: String| UpstreamError {
            name: name.to_owned(),
            target: spec.describe(),
            reason,
        };
        let stderr = StderrTail::default();
        let spawned = OnceLock::new();
        let connecting =
            async {
                let service = match spec {
                    ServerSpec::Stdio {
                        command,
                        args,
                        env,
                        cwd,
                    } => {
                        let mut process = tokio::process::Command::new(command);
                        process.args(args).envs(env);
                        if let Some(cwd) = cwd {
                            process.current_dir(cwd);
                        }
                        let started = groups
                            .spawn(name, process)
                            .map_err(|error| format!("could not be started: {error}"))?;
                        let _ = spawned.set(started.group);
                        forward_stderr(name.to_owned(), started.stderr, stderr.clone());
                        let transport = Tap::new(
                            AsyncRwTransport::new_client(started.stdout, started.stdin),
                            name,
                            relay,
                        );
                        client.clone().serve(transport).await.map_err(|error| {
                            format!(
                                "did not complete the MCP handshake ({error}){}",
                                stderr.explain()
                            )
                        })?
                    }
                    ServerSpec::Http { url, headers } => {
                        let mut config =
                            StreamableHttpClientTransportConfig::with_uri(url.as_str());
                        config.custom_headers = http_headers(headers)?;
                        let transport = Tap::new(
                            StreamableHttpClientTransport::from_config(config),
                            name,
                            relay,
                        );
                        client.clone().serve(transport).await.map_err(|error| {
                            format!("did not complete the MCP handshake ({error})")
                        })?
                    }
                };
                let tools = listing::list_tools(service.peer(), caps)
                    .await
                    .map_err(|error| match error {
                        listing::ListingError::Service(error) => {
                            format!("could not list its tools ({error}){}", stderr.explain())
                        }
                        listing::ListingError::Cap(reason)
                        | listing::ListingError::Malformed(reason) => reason,
                    })?;
                Ok::<_, String>((service, tools))
            };
        let failure = match tokio::time::timeout(timeout, connecting).await {
            Ok(Ok((service, listing))) => {
                return Ok(Upstream {
                    name: name.to_owned(),
                    service,
                    tools: listing.tools,
                    skipped: listing.skipped,
                    stderr,
                    relay: Arc::clone(relay),
                });
            }
            Ok(Err(reason)) => fail(reason),
            Err(_) => fail(format!(
                "did not start and list its tools within {}{}",
                seconds(timeout),
                stderr.explain()
            )),
        };
        // Not served, so not left running either.
        if let Some(&group) = spawned.get() {
            groups.terminate_group(group, TERMINATE_GRACE).await;
        }
        Err(failure)
    }

    /// The upstream's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The connection, for requests other than tool calls.
    pub(crate) fn peer(&self) -> &Peer<RoleClient> {
        self.service.peer()
    }

    /// What it declared in the handshake.
    pub(crate) fn server_capabilities(&self) -> rmcp::model::ServerCapabilities {
        self.service
            .peer()
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default()
    }

    /// The tools it listed, as it listed them.
    pub fn listed_tools(&self) -> &[rmcp::model::Tool] {
        &self.tools
    }

    /// A note per malformed tool of its listing, left out.
    pub fn skipped_tools(&self) -> &[String] {
        &self.skipped
    }

    /// Its tools as Code Mode tools: named `<prefix>_<tool>` (or as listed
    /// when `prefix` is `None`), with the upstream's description and
    /// schemas, in the upstream's group; read-only tools (annotated
    /// `readOnlyHint`) may overlap. Each call is forwarded with its timeout
    /// from `timeouts`, else `call_timeout`.
    pub fn code_mode_tools(
        &self,
        prefix: Option<&str>,
        timeouts: &ServerTimeouts,
        call_timeout: Duration,
    ) -> Vec<Tool> {
        self.tools
            .iter()
            .map(|listed| {
                let name = match prefix {
                    Some(prefix) => format!("{prefix}_{}", listed.name),
                    None => listed.name.to_string(),
                };
                let forward = Forward {
                    upstream: self.name.clone(),
                    tool: listed.name.to_string(),
                    peer: self.service.peer().clone(),
                    stderr: self.stderr.clone(),
                    call_timeout: timeouts.for_tool(&listed.name, call_timeout),
                    relay: Arc::clone(&self.relay),
                    structured: listed.output_schema.is_some(),
                };
                let forward = Arc::new(forward);
                let mut tool = Tool::new(
                    name,
                    listed.description.as_deref().unwrap_or_default(),
                    Value::Object((*listed.input_schema).clone()),
                    move |args, ctx| {
                        let forward = Arc::clone(&forward);
                        async move { forward.call(args, ctx).await }
                    },
                )
                .group(self.name.clone());
                if let Some(schema) = &listed.output_schema {
                    tool = tool.output_schema(Value::Object((**schema).clone()));
                }
                let read_only = listed
                    .annotations
                    .as_ref()
                    .and_then(|annotations| annotations.read_only_hint)
                    .unwrap_or(false);
                tool.concurrency_safe(read_only)
            })
            .collect()
    }

    /// Closes the connection: for a child process, its stdin (the MCP
    /// stdio way to ask it to exit; its process group is stopped by
    /// [`ProcessGroups::terminate`]). Waits at most `timeout`.
    pub async fn close(self, timeout: Duration) {
        let _ = tokio::time::timeout(timeout, self.service.cancel()).await;
    }
}

/// Everything one forwarded tool needs.
struct Forward {
    upstream: String,
    tool: String,
    peer: Peer<RoleClient>,
    stderr: StderrTail,
    call_timeout: Duration,
    structured: bool,
    relay: Arc<Relay>,
}

impl Forward {
    async fn call(&self, args: Value, ctx: ToolContext) -> ToolResult {
        let mut params = CallToolRequestParams::new(self.tool.clone());
        match args {
            Value::Object(arguments) => params = params.with_arguments(arguments),
            Value::Null => {}
            other => {
                return ToolResult::error(format!(
                    "{} takes an argument object, not {}",
                    self.tool,
                    kind(&other)
                ));
            }
        }
        // Dropping the call future (abort or timeout) sends the upstream
        // `notifications/cancelled` for the request.
        let started = std::time::Instant::now();
        let call = tokio::time::timeout(self.call_timeout, self.send(params, ctx.call_id()));
        let counted = |outcome: &str| {
            crate::ops::Metrics::global().upstream_call(
                &self.upstream,
                &self.tool,
                outcome,
                started.elapsed(),
            );
        };
        tokio::select! {
            outcome = call => match outcome {
                Ok(Sent::Answered(result)) => {
                    counted(if result.is_error == Some(true) { "error" } else { "ok" });
                    self.convert(result)
                }
                Ok(Sent::Failed(error)) => {
                    counted("error");
                    ToolResult::error(self.explain(&error))
                }
                Ok(Sent::Paused(payload)) => {
                    counted("paused");
                    ToolResult::interrupt(
                    format!(
                        "upstream {:?} asked the client a question during a call of its tool \
                         {:?}, which only a run_code program can wait for",
                        self.upstream, self.tool
                    ),
                    payload,
                    )
                }
                Err(_) => {
                    counted("timeout");
                    ToolResult::error(format!(
                        "upstream {:?} did not answer a call of its tool {:?} within {}; the call \
                         was cancelled",
                        self.upstream,
                        self.tool,
                        seconds(self.call_timeout)
                    ))
                }
            },
            reason = ctx.signal().aborted() => {
                counted("cancelled");
                tracing::info!(upstream = %self.upstream, tool = %self.tool, "call cancelled: {reason}");
                ToolResult::error(format!("the call was cancelled: {reason}"))
            }
        }
    }

    /// Sends the call, its progress relayed to the client call `call_id`
    /// belongs to while it runs, and the questions its upstream asks
    /// answered from the client's earlier answers, or else pausing it (see
    /// relay/inputs.rs).
    async fn send(&self, mut params: CallToolRequestParams, call_id: &str) -> Sent {
        let span = match self.relay.caller_span(call_id) {
            Some(parent) => tracing::info_span!(
                parent: &parent,
                "upstream_call",
                server = %self.upstream,
                tool = %self.tool
            ),
            None => {
                tracing::info_span!("upstream_call", server = %self.upstream, tool = %self.tool)
            }
        };
        crate::traces::inject(&span, params.meta.get_or_insert_with(Default::default));
        self.sent(params, call_id).instrument(span).await
    }

    async fn sent(&self, params: CallToolRequestParams, call_id: &str) -> Sent {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = match self
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(error) => return Sent::Failed(error),
        };
        let inputs = Arc::new(CallInputs::new(self.relay.take_answers(call_id)));
        let route = self.relay.upstream_call(
            &self.upstream,
            &self.tool,
            call_id,
            handle.progress_token.clone(),
            Arc::clone(&inputs),
        );
        let mut abandoned = Abandoned {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
        };
        let response = tokio::select! {
            response = handle.await_response() => response,
            // Dropping the request (`abandoned`) cancels it upstream.
            () = inputs.paused() => {
                return Sent::Paused(inputs.payload(&self.upstream, &self.tool));
            }
        };
        abandoned.id = None;
        route.settle().await;
        match response {
            Ok(ServerResult::CallToolResult(result)) => Sent::Answered(result),
            Ok(_) => Sent::Failed(ServiceError::UnexpectedResponse),
            Err(error) => Sent::Failed(error),
        }
    }

    fn explain(&self, error: &ServiceError) -> String {
        let what = match error {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                "lost the connection (the server exited or closed it)".to_owned()
            }
            ServiceError::McpError(data) => format!("answered with an error: {}", data.message),
            other => format!("failed: {other}"),
        };
        format!(
            "upstream {:?} {what} during a call of its tool {:?}{}",
            self.upstream,
            self.tool,
            self.stderr.explain()
        )
    }

    /// The upstream's result as Code Mode's: its content blocks (text as
    /// text, images, audio and embedded resources as themselves, anything
    /// else described), its error flag, and its structured content when the
    /// tool declares an output schema.
    fn convert(&self, result: CallToolResult) -> ToolResult {
        let content = result.content.iter().map(block).collect();
        let mut converted = ToolResult::text("");
        converted.content = content;
        converted.is_error = result.is_error.unwrap_or(false);
        if self.structured && !converted.is_error {
            converted.structured = result.structured_content;
        }
        converted
    }
}

/// How a forwarded call ended.
enum Sent {
    /// The upstream answered.
    Answered(CallToolResult),
    /// The request failed.
    Failed(ServiceError),
    /// The upstream asked the client a question it answers on a later
    /// round: the program pauses with this payload.
    Paused(Value),
}

/// A request sent and not answered yet: dropped (the caller gave up), it
/// tells the upstream with `notifications/cancelled`.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<rmcp::model::RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let peer = self.peer.clone();
        let cancelled =
            CancelledNotificationParam::new(Some(id), Some("the call was cancelled".to_owned()));
        // Best effort, after the caller has moved on.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer.notify_cancelled(cancelled).await;
            });
        }
    }
}

/// An upstream content block as Code Mode's.
fn block(block: &rmcp::model::ContentBlock) -> ContentBlock {
    use rmcp::model::ContentBlock as Block;
    use rmcp::model::ResourceContents as Contents;
    match block {
        Block::Text(text) => ContentBlock::Text {
            text: text.text.clone(),
        },
        Block::Image(image) => ContentBlock::Image {
            data: image.data.clone(),
            mime_type: image.mime_type.clone(),
        },
        Block::Audio(audio) => ContentBlock::Audio {
            data: audio.data.clone(),
            mime_type: audio.mime_type.clone(),
        },
        Block::Resource(embedded) => match &embedded.resource {
            Contents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => ContentBlock::Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: Some(text.clone()),
                blob: None,
            },
            Contents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => ContentBlock::Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: None,
                blob: Some(blob.clone()),
            },
            #[allow(
                unreachable_patterns,
                reason = "rmcp's ResourceContents is non-exhaustive across versions"
            )]
            _ => ContentBlock::Text {
                text: "[resource]".to_owned(),
            },
        },
        Block::ResourceLink(link) => ContentBlock::Resource {
            uri: link.uri.clone(),
            mime_type: link.mime_type.clone(),
            text: None,
            blob: None,
        },
        #[allow(
            unreachable_patterns,
            reason = "rmcp adds content kinds in minor versions"
        )]
        _ => ContentBlock::Text {
            text: "[content of a kind coderun does not render]".to_owned(),
        },
    }
}

fn http_headers(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<HashMap<http::HeaderName, http::HeaderValue>, String> {
    headers
        .iter()
        .map(|(name, value)| {
            let header = http::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| format!("has an invalid header name {name:?}"))?;
            let value = http::HeaderValue::from_str(value)
                .map_err(|_| format!("has an invalid value for header {name:?}"))?;
            Ok((header, value))
        })
        .collect()
}

fn seconds(duration: Duration) -> String {
    format!("{}s", duration.as_secs_f64())
}
