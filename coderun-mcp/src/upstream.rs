//! One upstream MCP server: started (or connected to), its tools listed, and
//! each tool offered to Code Mode as a [`Tool`] whose handler forwards the
//! call.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use coderun_code_mode::Tool;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{Peer, RoleClient, ServiceExt as _};
use serde_json::Value;

mod forward;
mod listing;

use self::forward::Forward;

pub use self::listing::ListingCaps;
mod stderr;

use self::stderr::{StderrTail, forward_stderr};
use super::config::{ServerSpec, ServerTimeouts};
use super::process_group::{ProcessGroups, TERMINATE_GRACE};
use super::relay::{Relay, Tap, UpstreamClient};

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
