//! `coderun mcp`: a Code Mode MCP server in front of other MCP servers.
//!
//! The gateway starts (or connects to) every upstream server of an
//! `mcpServers` configuration, lists their tools and registers them in a
//! Code Mode [`ToolRegistry`]. It then serves MCP itself, over stdio or
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

pub mod config;
mod server;
mod upstream;

use std::fmt::Write as _;
use std::sync::Arc;

use anyhow::Context as _;
use code_mode::{Mode, ToolRegistry};
use futures::future::join_all;

use crate::runtime::WasmCodeRuntime;

pub use config::{ConfigError, Limits, McpConfig, ServerSpec};
pub use server::{CodeModeServer, serve_http, serve_stdio};
pub use upstream::{Upstream, UpstreamError};

/// One upstream to start, and the prefix of its tools' names.
#[derive(Debug, Clone)]
pub struct UpstreamSpec {
    /// Its name, used in messages (and as the prefix, when `prefixed`).
    pub name: String,
    /// How to reach it.
    pub spec: ServerSpec,
    /// Whether its tools are named `<name>_<tool>` (else as listed).
    pub prefixed: bool,
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
            })
            .collect()
    }
}

/// The upstreams that started, the ones that did not, and the registry of
/// their tools.
pub struct Gateway {
    registry: ToolRegistry,
    upstreams: Vec<Upstream>,
    unavailable: Vec<String>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("upstreams", &self.upstreams)
            .field("unavailable", &self.unavailable)
            .finish_non_exhaustive()
    }
}

impl Gateway {
    /// Starts every upstream at once and registers the tools of those that
    /// come up within the startup timeout, in a registry of `mode` whose
    /// programs run under `limits`. Fails only if the runtime cannot be
    /// built; an upstream's failure is logged and reported by
    /// [`unavailable`](Self::unavailable).
    pub async fn start(
        upstreams: &[UpstreamSpec],
        limits: &Limits,
        mode: Mode,
    ) -> anyhow::Result<Gateway> {
        let runtime =
            WasmCodeRuntime::new(limits.runtime_config()).context("the limits are invalid")?;
        let startup_timeout = limits.startup_timeout();
        let connected = join_all(upstreams.iter().map(|upstream| async move {
            let result = Upstream::connect(&upstream.name, &upstream.spec, startup_timeout).await;
            (upstream, result)
        }))
        .await;

        let mut registry = ToolRegistry::new();
        registry.mode(mode).runtime(Arc::new(runtime));
        let mut started = Vec::new();
        let mut unavailable = Vec::new();
        for (spec, result) in connected {
            let upstream = match result {
                Ok(upstream) => upstream,
                Err(error) => {
                    tracing::error!("{error}; serving the other upstreams without it");
                    unavailable.push(error.to_string());
                    continue;
                }
            };
            let prefix = spec.prefixed.then_some(spec.name.as_str());
            let tools = upstream.code_mode_tools(prefix, limits.call_timeout());
            tracing::info!(
                upstream = %spec.name,
                "connected: {} tools",
                tools.len()
            );
            for tool in tools {
                let name = tool.name().to_owned();
                if let Err(error) = registry.register(tool) {
                    let message = format!(
                        "upstream {:?}: its tool {name:?} is left out: {error}",
                        spec.name
                    );
                    tracing::error!("{message}");
                    unavailable.push(message);
                }
            }
            started.push(upstream);
        }
        Ok(Gateway {
            registry,
            upstreams: started,
            unavailable,
        })
    }

    /// The registry of every upstream tool.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// The upstreams that started.
    pub fn upstreams(&self) -> &[Upstream] {
        &self.upstreams
    }

    /// Why each upstream (or tool) that is not served is not.
    pub fn unavailable(&self) -> &[String] {
        &self.unavailable
    }

    /// The note appended to `run_code`'s description about what is not
    /// served, or nothing.
    pub fn unavailable_note(&self) -> String {
        if self.unavailable.is_empty() {
            return String::new();
        }
        let mut note =
            String::from("\n## Unavailable\n\nThese failed at startup and have no tools above:\n");
        for reason in &self.unavailable {
            let _ = writeln!(note, "- {reason}");
        }
        note
    }

    /// Closes every upstream connection (stopping child processes).
    pub async fn close(self) {
        join_all(self.upstreams.into_iter().map(Upstream::close)).await;
    }
}
