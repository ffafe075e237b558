//! The gateway: the upstreams that started and the ones that did not, the
//! registry of their tools (with the approval hook and the globals of
//! their resources and prompts), and what relays their notifications.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use coderun_code_mode::{HookDecision, Mode, ToolCall, ToolRegistry};
use coderun_runtime::{RuntimeConfig, WasmCodeRuntime};
use futures::future::join_all;
use serde_json::json;

use crate::config::Limits;
use crate::passthrough::{self, Passthrough, Source};
use crate::process_group::ProcessGroups;
use crate::relay::Relay;
use crate::upstream::Upstream;
use crate::{ServeError, UpstreamSpec, ops, process_group};

/// How long closing waits for the programs in flight to stop.
const DISPOSE_WAIT: Duration = Duration::from_millis(300);
/// How long closing waits for an upstream connection to close.
const CLOSE_WAIT: Duration = Duration::from_millis(300);

/// The upstreams that started, the ones that did not, and the registry of
/// their tools.
pub struct Gateway {
    registry: ToolRegistry,
    /// The tools whose calls need approval, by registered name.
    gated: Arc<HashSet<String>>,
    upstreams: Vec<Upstream>,
    unavailable: Vec<String>,
    groups: ProcessGroups,
    /// Each registered tool as its upstream listed it, by registered name.
    listed: HashMap<String, rmcp::model::Tool>,
    trace: bool,
    relay: Arc<Relay>,
    /// The upstreams' resources, templates, prompts and completions.
    passthrough: Arc<Passthrough>,
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
    /// programs run on a runtime of `config` (validated here, and only
    /// here), with `limits`' timeouts. Fails only if the runtime cannot be
    /// built; an upstream's failure is logged and reported by
    /// [`unavailable`](Self::unavailable).
    ///
    /// The processes of stdio upstreams join `groups` as they start, so
    /// that a start cancelled midway can still stop them.
    pub async fn start(
        upstreams: &[UpstreamSpec],
        config: RuntimeConfig,
        limits: &Limits,
        mode: Mode,
        groups: &ProcessGroups,
    ) -> Result<Gateway, ServeError> {
        // Compiling the guest takes a while: off the async threads, so that
        // a shutdown requested meanwhile is not kept waiting.
        let runtime = tokio::task::spawn_blocking(move || WasmCodeRuntime::new(config))
            .await
            .map_err(|_| ServeError::RuntimeStopped)??;
        let runtime = Arc::new(runtime);
        let startup_timeout = limits.startup_timeout();
        let caps = limits.listing_caps();
        let relay = Arc::new(Relay::default());
        let connected = join_all(upstreams.iter().map(|upstream| {
            let relay = &relay;
            async move {
                let result = Upstream::connect(
                    &upstream.name,
                    &upstream.spec,
                    startup_timeout,
                    caps,
                    groups,
                    relay,
                )
                .await;
                (upstream, result)
            }
        }))
        .await;

        let mut registry = ToolRegistry::new();
        registry
            // An upstream's question to a client on MCP 2026-07-28 pauses
            // the program (see relay/inputs.rs).
            .handlers_may_pause(true)
            .mode(mode)
            .runtime(Arc::clone(&runtime) as Arc<dyn coderun_runtime::CodeRuntime>)
            .disclosure(limits.disclosure.unwrap_or_default());
        if let Some(bytes) = limits.max_output_bytes {
            registry.max_output_bytes(bytes);
        }
        if let Some(bytes) = limits.sdk_budget_bytes {
            registry.sdk_budget(bytes);
        }
        if let Some(bytes) = limits.max_sdk_bytes {
            registry.max_sdk_bytes(bytes);
        }
        let mut listed_tools = HashMap::new();
        let mut started = Vec::new();
        let mut unavailable = Vec::new();
        let mut gated = HashSet::new();
        let mut sources = Vec::new();
        for (spec, result) in connected {
            let upstream = match result {
                Ok(upstream) => upstream,
                Err(error) => {
                    tracing::error!("{error}; serving the other upstreams without it");
                    unavailable.push(error.to_string());
                    continue;
                }
            };
            for note in upstream.skipped_tools() {
                let message = format!("upstream {:?}: {note}", spec.name);
                tracing::error!("{message}");
                unavailable.push(message);
            }
            let prefix = spec.prefixed.then_some(spec.name.as_str());
            sources.push(Source {
                name: spec.name.clone(),
                prefix: prefix.map(str::to_owned),
                peer: upstream.peer().clone(),
                capabilities: upstream.server_capabilities(),
            });
            let tools = upstream.code_mode_tools(prefix, &spec.timeouts, limits.call_timeout());
            tracing::info!(
                upstream = %spec.name,
                "connected: {} tools",
                tools.len()
            );
            for (tool, listed) in tools.into_iter().zip(upstream.listed_tools()) {
                let name = tool.name().to_owned();
                let needs_approval = spec.require_approval.applies_to(listed);
                if coderun_code_mode::is_reserved_name(&name) {
                    let message = format!(
                        "upstream {:?}: its tool {name:?} is left out: the name is coderun's own \
                         (run_code, tools.$search, tools.$describe)",
                        spec.name
                    );
                    tracing::error!("{message}");
                    unavailable.push(message);
                    continue;
                }
                listed_tools.insert(name.clone(), listed.clone());
                if let Err(error) = registry.register(tool) {
                    let message = format!(
                        "upstream {:?}: its tool {name:?} is left out: {error}",
                        spec.name
                    );
                    tracing::error!("{message}");
                    unavailable.push(message);
                } else if needs_approval {
                    gated.insert(name);
                }
            }
            started.push(upstream);
        }
        // Programs reach the upstreams' resources and prompts through
        // globals of their own, in every mode.
        let passthrough = Arc::new(Passthrough::new(sources, caps, Arc::clone(&relay)));
        for global in [
            passthrough::resources_global(&passthrough),
            passthrough::prompts_global(&passthrough),
        ]
        .into_iter()
        .flatten()
        {
            registry.global(global);
        }
        ops::Metrics::global().started(&runtime);
        let gated = Arc::new(gated);
        if !gated.is_empty() {
            tracing::info!(
                "{} tools need approval before a program's call runs",
                gated.len()
            );
            let hook_gated = Arc::clone(&gated);
            registry.on_pre_execute(move |call: &ToolCall| {
                let decision = if hook_gated.contains(&call.name) {
                    HookDecision::needs_approval(json!({
                        "tool": call.name,
                        "arguments": call.arguments,
                    }))
                } else {
                    HookDecision::Allow
                };
                async move { decision }
            });
        }
        Ok(Gateway {
            registry,
            gated,
            upstreams: started,
            unavailable,
            groups: groups.clone(),
            listed: listed_tools,
            trace: limits.trace.unwrap_or(false),
            relay,
            passthrough,
        })
    }

    /// The upstreams' resources, templates, prompts and completions,
    /// offered as they are (mode both and native).
    pub(crate) fn passthrough(&self) -> &Arc<Passthrough> {
        &self.passthrough
    }

    /// Where upstream notifications and requests are relayed to clients.
    pub(crate) fn relay(&self) -> &Arc<Relay> {
        &self.relay
    }

    /// The tool registered as `name`, as its upstream listed it.
    pub fn listed_tool(&self, name: &str) -> Option<&rmcp::model::Tool> {
        self.listed.get(name)
    }

    /// Whether each run's trace is logged.
    pub fn traces(&self) -> bool {
        self.trace
    }

    /// The registry of every upstream tool.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// The names of the tools whose calls need approval.
    pub fn gated_tools(&self) -> &HashSet<String> {
        &self.gated
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
        unavailable_note(&self.unavailable)
    }

    /// Stops everything, at once and in well under a second: aborts the
    /// programs in flight (disposing the runtime), closes every upstream
    /// connection, and stops the process group of every stdio upstream
    /// (SIGTERM, then SIGKILL after [`process_group::TERMINATE_GRACE`]).
    pub async fn close(self) {
        let runtime = self.registry.get_runtime().cloned();
        let dispose = async {
            if let Some(runtime) = runtime
                && tokio::time::timeout(DISPOSE_WAIT, runtime.dispose())
                    .await
                    .is_err()
            {
                tracing::warn!("programs still running {DISPOSE_WAIT:?} after the abort");
            }
        };
        let connections = join_all(
            self.upstreams
                .into_iter()
                .map(|upstream| upstream.close(CLOSE_WAIT)),
        );
        tokio::join!(
            dispose,
            connections,
            self.groups.terminate(process_group::TERMINATE_GRACE)
        );
    }
}

/// Reasons the note lists; the rest are counted (coderun's log has each).
const UNAVAILABLE_LISTED: usize = 20;
/// The longest reason in the note, in bytes.
const UNAVAILABLE_REASON_BYTES: usize = 300;

/// The "Unavailable" section of `run_code`'s description: each reason on one
/// line (control characters, which an upstream's name or stderr may hold,
/// made spaces), cut at [`UNAVAILABLE_REASON_BYTES`], at most
/// [`UNAVAILABLE_LISTED`] of them, so that an upstream with 10,000 bad
/// tools adds a few kilobytes, not megabytes.
fn unavailable_note(reasons: &[String]) -> String {
    if reasons.is_empty() {
        return String::new();
    }
    let mut note =
        String::from("\n## Unavailable\n\nThese failed at startup and have no tools above:\n");
    for reason in reasons.iter().take(UNAVAILABLE_LISTED) {
        let flat: String = reason
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let _ = writeln!(
            note,
            "- {}",
            coderun_runtime::shorten(&flat, UNAVAILABLE_REASON_BYTES)
        );
    }
    if reasons.len() > UNAVAILABLE_LISTED {
        let _ = writeln!(
            note,
            "- and {} more (coderun's log lists each)",
            reasons.len() - UNAVAILABLE_LISTED
        );
    }
    note
}

#[cfg(test)]
mod unavailable_tests {
    use super::*;

    #[test]
    fn the_unavailable_note_stays_small_and_on_its_lines() {
        let reasons: Vec<String> = (0..10_000)
            .map(|i| {
                format!(
                    "upstream \"u\": its tool \"dup{i}\n## SYSTEM\" is left out: {}",
                    "x".repeat(1000)
                )
            })
            .collect();
        let note = unavailable_note(&reasons);
        assert!(note.len() < 8 * 1024, "{} bytes", note.len());
        assert!(note.contains("and 9980 more"), "{note}");
        assert!(
            !note.lines().any(|line| line.starts_with("## SYSTEM")),
            "{note}"
        );
        assert_eq!(unavailable_note(&[]), "");
    }
}
