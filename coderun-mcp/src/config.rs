//! The configuration of `coderun mcp`: the `mcpServers` JSON format MCP
//! clients already use, plus coderun's own `limits`, `http` and `requestState` sections.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
//!     "search": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ..."}},
//!     "github": {"command": "github-mcp", "requireApproval": "destructive"}
//!   },
//!   "limits": {"wallClockSeconds": 60, "callTimeoutSeconds": 45, "maxMessageBytes": 1048576},
//!   "http": {"allowedOrigins": ["https://app.example.com"], "authTokenEnv": "CODERUN_TOKEN",
//!            "maxConnections": 256, "headerTimeoutSecs": 10, "bodyTimeoutSecs": 30},
//!   "requestState": {"keys": [{"id": "k1", "file": "/run/secrets/state-key"}], "ttlSeconds": 86400}
//! }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use coderun_code_mode::Disclosure;

mod http;
mod limits;
mod network;
mod request_state;

use http::RawHttp;
pub use http::{HttpConfig, LOOPBACK_ORIGINS, origin};
pub use limits::Limits;
use limits::{RawLimits, limits};
use network::RawNetwork;
use request_state::RawRequestState;
pub use request_state::{DEFAULT_STATE_TTL, MIN_KEY_BYTES, RequestStateConfig, StateKey};

/// The default time an upstream has to start and list its tools.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// The default time an upstream has to answer one tool call.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(20);
/// The default cap on one incoming MCP message: a line on stdio, a request
/// body over HTTP. 16 MiB, the size rmcp allows a line by default.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// A configuration file that cannot be used; the message names the file and
/// the key.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ConfigError {
    path: String,
    message: String,
}

impl ConfigError {
    fn new(path: &Path, message: impl Into<String>) -> Self {
        Self {
            path: path.display().to_string(),
            message: message.into(),
        }
    }
}

/// The upstream servers and the budgets of `coderun mcp`.
#[derive(Debug, Clone, PartialEq)]
pub struct McpConfig {
    /// The upstreams, by name, sorted.
    pub servers: BTreeMap<String, ServerSpec>,
    /// Which upstreams' tools need approval before a program's call runs
    /// (`requireApproval`); a server not listed needs none.
    pub require_approval: BTreeMap<String, RequireApproval>,
    /// Per-server call timeouts (`callTimeoutSeconds`, `toolTimeouts` in a
    /// server's entry); a server not listed uses `limits.callTimeoutSeconds`.
    pub timeouts: BTreeMap<String, ServerTimeouts>,
    /// Budgets of programs and upstream calls.
    pub limits: Limits,
    /// Settings of the streamable HTTP server (`--listen`).
    pub http: HttpConfig,
    /// The keys paused runs are sealed with (`requestState`).
    pub request_state: RequestStateConfig,
    /// What programs' `fetch` may reach (the `network` section; by default
    /// nothing).
    pub network: coderun_runtime::NetworkPolicy,
}

/// One server's call timeouts, over `limits.callTimeoutSeconds`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerTimeouts {
    /// Every tool of the server (`"callTimeoutSeconds"`).
    pub server: Option<Duration>,
    /// Single tools, by the name the server lists (`"toolTimeouts"`).
    pub tools: BTreeMap<String, Duration>,
}

impl ServerTimeouts {
    /// The timeout of `tool`: its own, else the server's, else `default`.
    pub fn for_tool(&self, tool: &str, default: Duration) -> Duration {
        self.tools
            .get(tool)
            .copied()
            .or(self.server)
            .unwrap_or(default)
    }
}

/// How to reach one upstream MCP server.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerSpec {
    /// A server started as a child process speaking MCP over stdio.
    Stdio {
        /// The executable.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to coderun's environment for it.
        env: BTreeMap<String, String>,
        /// Its working directory (coderun's when absent).
        cwd: Option<PathBuf>,
    },
    /// A server reached over streamable HTTP.
    Http {
        /// The endpoint, `http://` or `https://`.
        url: String,
        /// Headers sent with every request (for example `Authorization`).
        headers: BTreeMap<String, String>,
    },
}

impl ServerSpec {
    /// How the server is reached, for messages: the command line or the URL.
    pub fn describe(&self) -> String {
        match self {
            ServerSpec::Stdio { command, args, .. } => {
                let mut line = command.clone();
                for arg in args {
                    line.push(' ');
                    line.push_str(arg);
                }
                line
            }
            ServerSpec::Http { url, .. } => url.clone(),
        }
    }
}

/// Which of an upstream's tools need someone's approval before a program's
/// call of them runs (`"requireApproval"` in a server's entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RequireApproval {
    /// None (the default).
    #[default]
    Never,
    /// The tools the server annotates `destructiveHint: true`.
    Destructive,
    /// Every tool.
    Always,
}

impl std::str::FromStr for RequireApproval {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "never" => Ok(Self::Never),
            "destructive" => Ok(Self::Destructive),
            "always" => Ok(Self::Always),
            other => Err(format!(
                "must be \"never\", \"destructive\" or \"always\" (got {other:?})"
            )),
        }
    }
}

impl RequireApproval {
    /// Whether a call of `tool`, as the upstream lists it, needs approval.
    pub fn applies_to(self, tool: &rmcp::model::Tool) -> bool {
        match self {
            Self::Never => false,
            Self::Always => true,
            Self::Destructive => tool
                .annotations
                .as_ref()
                .and_then(|annotations| annotations.destructive_hint)
                .unwrap_or(false),
        }
    }
}

/// Parses a duration given in (possibly fractional) seconds, for messages
/// naming `key`.
pub fn seconds(key: &str, value: f64) -> Result<Duration, String> {
    if value <= 0.0 {
        return Err(format!(
            "{key} must be a positive number of seconds (got {value})"
        ));
    }
    Duration::try_from_secs_f64(value)
        .map_err(|_| format!("{key} must be a positive number of seconds (got {value})"))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawConfig {
    mcp_servers: Option<BTreeMap<String, RawServer>>,
    disclosure: Option<String>,
    trace: Option<bool>,
    #[serde(default)]
    limits: RawLimits,
    #[serde(default)]
    http: RawHttp,
    #[serde(default)]
    request_state: RawRequestState,
    #[serde(default)]
    network: RawNetwork,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawServer {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    disabled: bool,
    require_approval: Option<String>,
    call_timeout_seconds: Option<f64>,
    #[serde(default)]
    tool_timeouts: BTreeMap<String, f64>,
}

impl McpConfig {
    /// Reads and validates the configuration file at `path`.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| ConfigError::new(path, format!("cannot read it: {error}")))?;
        Self::parse(path, &text)
    }

    /// Parses and validates `text`, the contents of the file at `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let raw: RawConfig = serde_json::from_str(text).map_err(|error| {
            ConfigError::new(
                path,
                format!("not a valid mcpServers configuration: {error}"),
            )
        })?;
        let Some(raw_servers) = raw.mcp_servers else {
            return Err(ConfigError::new(
                path,
                "no \"mcpServers\" object: expected {\"mcpServers\": {\"name\": {\"command\": \
                 ...}}}",
            ));
        };
        let mut servers = BTreeMap::new();
        let mut require_approval = BTreeMap::new();
        let mut timeouts = BTreeMap::new();
        for (name, mut server) in raw_servers {
            if server.disabled {
                continue;
            }
            let in_server =
                |message: String| ConfigError::new(path, format!("mcpServers.{name}: {message}"));
            let mut server_timeouts = ServerTimeouts {
                server: optional_seconds("callTimeoutSeconds", server.call_timeout_seconds.take())
                    .map_err(in_server)?,
                tools: BTreeMap::new(),
            };
            for (tool, seconds) in std::mem::take(&mut server.tool_timeouts) {
                let timeout =
                    self::seconds(&format!("toolTimeouts.{tool}"), seconds).map_err(in_server)?;
                server_timeouts.tools.insert(tool, timeout);
            }
            if server_timeouts != ServerTimeouts::default() {
                timeouts.insert(name.clone(), server_timeouts);
            }
            if let Some(policy) = server.require_approval.take() {
                let policy = policy.parse::<RequireApproval>().map_err(|message| {
                    ConfigError::new(
                        path,
                        format!("mcpServers.{name}: \"requireApproval\" {message}"),
                    )
                })?;
                if policy != RequireApproval::Never {
                    require_approval.insert(name.clone(), policy);
                }
            }
            let spec = server_spec(&name, server).map_err(|message| {
                ConfigError::new(path, format!("mcpServers.{name}: {message}"))
            })?;
            validate_name(&name).map_err(|message| {
                ConfigError::new(path, format!("mcpServers.{name}: {message}"))
            })?;
            servers.insert(name, spec);
        }
        if servers.is_empty() {
            return Err(ConfigError::new(
                path,
                "\"mcpServers\" has no enabled server: add at least one",
            ));
        }
        let mut limits = limits(raw.limits)
            .map_err(|message| ConfigError::new(path, format!("limits.{message}")))?;
        limits.disclosure = raw
            .disclosure
            .map(|text| text.parse::<Disclosure>())
            .transpose()
            .map_err(|error| ConfigError::new(path, error.to_string()))?;
        limits.trace = raw.trace;
        let http =
            HttpConfig::from_raw(raw.http).map_err(|message| ConfigError::new(path, message))?;
        let request_state = RequestStateConfig::from_raw(raw.request_state)
            .map_err(|message| ConfigError::new(path, message))?;
        let network = network::network(raw.network)
            .map_err(|message| ConfigError::new(path, format!("network.{message}")))?;
        Ok(Self {
            servers,
            require_approval,
            timeouts,
            limits,
            http,
            request_state,
            network,
        })
    }
}

/// A server name becomes the prefix of its tools' names in the SDK.
fn validate_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a server name cannot be empty".to_owned());
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(
            "a server name may only use letters, digits, `_` and `-` (it prefixes its tools' \
             names)"
                .to_owned(),
        );
    }
    Ok(())
}

fn server_spec(name: &str, raw: RawServer) -> Result<ServerSpec, String> {
    let kind = raw.kind.as_deref();
    match (raw.command, raw.url) {
        (Some(_), Some(_)) => Err("has both \"command\" and \"url\"; give one".to_owned()),
        (None, None) => Err(format!(
            "has neither \"command\" (a server to start) nor \"url\" (a server to connect to); \
             for example {{\"{name}\": {{\"command\": \"npx\", \"args\": [...]}}}}"
        )),
        (Some(command), None) => {
            if !matches!(kind, None | Some("stdio")) {
                return Err(format!(
                    "\"type\": {kind:?} does not go with \"command\" (use \"stdio\" or omit it)"
                ));
            }
            if command.trim().is_empty() {
                return Err("\"command\" is empty".to_owned());
            }
            Ok(ServerSpec::Stdio {
                command,
                args: raw.args,
                env: raw.env,
                cwd: raw.cwd,
            })
        }
        (None, Some(url)) => {
            match kind {
                None | Some("http") | Some("streamable-http") | Some("streamableHttp") => {}
                Some("sse") => {
                    return Err(
                        "\"type\": \"sse\" (the deprecated HTTP+SSE transport) is not supported; \
                         coderun speaks streamable HTTP"
                            .to_owned(),
                    );
                }
                Some(other) => {
                    return Err(format!(
                        "\"type\": {other:?} is not a transport coderun knows (use \"http\")"
                    ));
                }
            }
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "\"url\" must start with http:// or https:// (got {url:?})"
                ));
            }
            Ok(ServerSpec::Http {
                url,
                headers: raw.headers,
            })
        }
    }
}

/// [`seconds`] for a value that may be absent.
pub fn optional_seconds(key: &str, value: Option<f64>) -> Result<Option<Duration>, String> {
    value.map(|value| seconds(key, value)).transpose()
}

#[cfg(test)]
mod tests;
