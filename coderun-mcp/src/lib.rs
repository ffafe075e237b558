//! `coderun mcp`: a Code Mode MCP server in front of other MCP servers.
//!
//! The gateway starts (or connects to) every upstream server of an
//! `mcpServers` configuration, lists their tools and registers them in a
//! Code Mode [`ToolRegistry`](coderun_code_mode::ToolRegistry). It then serves MCP itself, over stdio or
//! streamable HTTP, offering one `run_code` tool whose description carries
//! the generated TypeScript SDK of every upstream tool (mode `code`), or the
//! upstream tools themselves as well (mode `both`). A program's
//! `await tools.<server>_<tool>({...})` is forwarded to the owning upstream.
//!
//! **Naming.** Every tool lives on the one `tools` object, named
//! `<server>_<tool>` after the server's key in the configuration:
//! `tools.filesystem_read_text_file`, `tools.memory_create_entities`. One
//! flat namespace keeps a call's spelling identical in the SDK, in the
//! native tool list (mode `both`) and in events, and sorting by name groups
//! each server's tools together. A single upstream given on the command line
//! (`coderun mcp -- <command>`) keeps its tools' own names.
//!
//! **Failures.** An upstream that cannot start, fails its handshake or does
//! not list its tools within the startup timeout is left out: the gateway
//! logs why and serves the others, and `run_code`'s description names it as
//! unavailable. A call that an upstream fails, answers with an error, does
//! not answer within the call timeout, or loses its connection during,
//! rejects in the program with a message naming the upstream.
//!
//! **Transports.** Over stdio ([`stdio`]) coderun reads the JSON-RPC lines
//! itself, to answer every malformed one as JSON-RPC 2.0 says; over HTTP
//! ([`http`]) rmcp's streamable HTTP service runs behind Origin and Host
//! checks and an optional bearer token.
//!
//! **Shutdown.** SIGINT, SIGTERM and the end of stdin each stop the server
//! within a second ([`shutdown`]): programs in flight are aborted, and
//! every stdio upstream's process group gets SIGTERM, then SIGKILL
//! ([`process_group`]).

pub mod config;
mod error;
mod front_door;
mod gateway;
pub mod http;
mod jsonrpc;
mod logging;
pub mod ops;
mod passthrough;
pub mod process_group;
mod progress;
mod relay;
mod sealed;
mod server;
pub mod shutdown;
pub mod stdio;
#[cfg(test)]
mod test_support;
mod traces;
mod upstream;

use coderun_code_mode::Mode;
use coderun_runtime::RuntimeConfig;

pub use config::{
    ConfigError, HttpConfig, Limits, McpConfig, RequestStateConfig, RequireApproval, ServerSpec,
    ServerTimeouts, StateKey,
};
pub use error::ServeError;
pub use gateway::Gateway;
pub use http::{AuthToken, HttpListener, HttpOptions, Listen, serve_http};
pub use process_group::ProcessGroups;
pub use sealed::{REFUSED as REFUSED_STATE, SealError, Sealer};
pub use server::CodeModeServer;
pub use shutdown::{Reason, Shutdown};
pub use stdio::{Stdio, serve_stdio};
pub use upstream::{ListingCaps, Upstream, UpstreamError};

/// How `coderun mcp` is reached.
#[derive(Debug)]
pub enum Transport {
    /// The standard streams (started before the upstreams, so that the end
    /// of stdin stops their start too).
    Stdio(Stdio),
    /// Streamable HTTP, on a socket bound before the upstreams start.
    Http(HttpListener),
}

/// Starts the upstreams and serves Code Mode over `transport` until
/// `shutdown` is requested (or the client closes stdin), then stops the
/// programs in flight and every upstream. Shutdown requested while the
/// upstreams start stops them at once.
pub async fn serve(
    upstreams: &[UpstreamSpec],
    config: RuntimeConfig,
    limits: &Limits,
    request_state: &RequestStateConfig,
    mode: Mode,
    transport: Transport,
    shutdown: &Shutdown,
) -> Result<(), ServeError> {
    let sealer = Sealer::for_limits(request_state, limits).map_err(ServeError::Sealing)?;
    let groups = ProcessGroups::new();
    let gateway = tokio::select! {
        gateway = Gateway::start(upstreams, config, limits, mode, &groups) => gateway?,
        () = shutdown.requested_or_stdin_closed() => {
            groups.terminate(process_group::TERMINATE_GRACE).await;
            return Ok(());
        }
    };
    let server = match CodeModeServer::new(&gateway, sealer) {
        Ok(server) => server.draining_on(shutdown),
        Err(error) => {
            gateway.close().await;
            return Err(error);
        }
    };
    let closing = tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            shutdown.requested().await;
            gateway.close().await;
        }
    });
    let served = match transport {
        Transport::Stdio(stdio) => serve_stdio(server, stdio, shutdown).await,
        Transport::Http(listener) => serve_http(server, listener, shutdown).await,
    };
    shutdown.trigger(Reason::Stopped);
    if tokio::time::timeout_at(shutdown.deadline(), closing)
        .await
        .is_err()
    {
        tracing::warn!("the upstreams were not all stopped by the shutdown deadline");
    }
    served
}

/// One upstream to start, and the prefix of its tools' names.
#[derive(Debug, Clone)]
pub struct UpstreamSpec {
    /// Its name, used in messages (and as the prefix, when `prefixed`).
    pub name: String,
    /// How to reach it.
    pub spec: ServerSpec,
    /// Whether its tools are named `<name>_<tool>` (else as listed).
    pub prefixed: bool,
    /// Which of its tools need approval before a program's call runs.
    pub require_approval: RequireApproval,
    /// Its call timeouts, over the limits' `call_timeout`.
    pub timeouts: ServerTimeouts,
}

impl UpstreamSpec {
    /// The upstreams of a configuration file, each prefixed by its name.
    pub fn from_config(config: &McpConfig) -> Vec<UpstreamSpec> {
        config
            .servers
            .iter()
            .map(|(name, spec)| UpstreamSpec {
                name: name.clone(),
                spec: spec.clone(),
                prefixed: true,
                require_approval: config
                    .require_approval
                    .get(name)
                    .copied()
                    .unwrap_or_default(),
                timeouts: config.timeouts.get(name).cloned().unwrap_or_default(),
            })
            .collect()
    }
}
