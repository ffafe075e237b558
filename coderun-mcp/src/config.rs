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
use coderun_runtime::RuntimeConfig;

mod http;
mod request_state;

use http::RawHttp;
pub use http::{HttpConfig, LOOPBACK_ORIGINS, origin};
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

/// Budgets; every field has a documented default.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Limits {
    /// Fuel budget of one program (the runtime's default when absent).
    pub fuel: Option<u64>,
    /// Wall-clock budget of one program (the runtime's default, 30 s, when absent).
    pub wall_clock: Option<Duration>,
    /// Memory cap of one program, in MiB (the runtime's default, 128, when absent).
    pub max_memory_mib: Option<u64>,
    /// Cap on a program's console output, in bytes.
    pub max_log_bytes: Option<usize>,
    /// Cap on a program's returned value, in bytes of JSON.
    pub max_value_bytes: Option<usize>,
    /// Cap on a program's failure message, in bytes.
    pub max_error_bytes: Option<usize>,
    /// The longest program accepted, in bytes.
    pub max_program_bytes: Option<usize>,
    /// The deepest nesting of syntax accepted.
    pub max_nesting_depth: Option<usize>,
    /// Linear memory all concurrent programs may hold together, in MiB
    /// (half the machine's memory when absent).
    pub max_total_memory_mib: Option<u64>,
    /// Time an upstream has to start and list its tools
    /// ([`DEFAULT_STARTUP_TIMEOUT`] when absent).
    pub startup_timeout: Option<Duration>,
    /// Time an upstream has to answer one call ([`DEFAULT_CALL_TIMEOUT`]
    /// when absent); a call it has not answered by then rejects in the
    /// program with a message naming the upstream.
    pub call_timeout: Option<Duration>,
    /// Cap on one incoming MCP message, in bytes: a line on stdio, a
    /// request body over HTTP ([`DEFAULT_MAX_MESSAGE_BYTES`] when absent).
    pub max_message_bytes: Option<usize>,
    /// The budget of one `run_code` result's text, in bytes (Code Mode's
    /// default, 24 KiB, when absent).
    pub max_output_bytes: Option<usize>,
    /// The budget of the SDK in `run_code`'s description, in bytes (Code
    /// Mode's default, 15 KiB, when absent).
    pub sdk_budget_bytes: Option<usize>,
    /// The cap on the SDK declaring every tool, in bytes, in any disclosure
    /// (Code Mode's default, 1 MiB, when absent).
    pub max_sdk_bytes: Option<usize>,
    /// Caps on each upstream's `tools/list`: pages read, tools taken and
    /// bytes of definitions (100, 10,000 and 16 MiB when absent).
    pub max_listing_pages: Option<usize>,
    /// See [`max_listing_pages`](Self::max_listing_pages).
    pub max_listed_tools: Option<usize>,
    /// See [`max_listing_pages`](Self::max_listing_pages).
    pub max_listing_bytes: Option<usize>,
    /// How much of the catalog the description declares (`auto` when
    /// absent).
    pub disclosure: Option<Disclosure>,
    /// Whether each run's trace is logged as one JSON line (off when
    /// absent).
    pub trace: Option<bool>,
}

impl Limits {
    /// These limits with every value `overrides` sets replacing this one's.
    pub fn overridden_by(&self, overrides: &Limits) -> Limits {
        Limits {
            fuel: overrides.fuel.or(self.fuel),
            wall_clock: overrides.wall_clock.or(self.wall_clock),
            max_memory_mib: overrides.max_memory_mib.or(self.max_memory_mib),
            max_log_bytes: overrides.max_log_bytes.or(self.max_log_bytes),
            max_value_bytes: overrides.max_value_bytes.or(self.max_value_bytes),
            max_error_bytes: overrides.max_error_bytes.or(self.max_error_bytes),
            max_program_bytes: overrides.max_program_bytes.or(self.max_program_bytes),
            max_nesting_depth: overrides.max_nesting_depth.or(self.max_nesting_depth),
            max_total_memory_mib: overrides.max_total_memory_mib.or(self.max_total_memory_mib),
            startup_timeout: overrides.startup_timeout.or(self.startup_timeout),
            call_timeout: overrides.call_timeout.or(self.call_timeout),
            max_message_bytes: overrides.max_message_bytes.or(self.max_message_bytes),
            max_output_bytes: overrides.max_output_bytes.or(self.max_output_bytes),
            sdk_budget_bytes: overrides.sdk_budget_bytes.or(self.sdk_budget_bytes),
            max_sdk_bytes: overrides.max_sdk_bytes.or(self.max_sdk_bytes),
            max_listing_pages: overrides.max_listing_pages.or(self.max_listing_pages),
            max_listed_tools: overrides.max_listed_tools.or(self.max_listed_tools),
            max_listing_bytes: overrides.max_listing_bytes.or(self.max_listing_bytes),
            disclosure: overrides.disclosure.or(self.disclosure),
            trace: overrides.trace.or(self.trace),
        }
    }

    /// The runtime configuration these limits describe.
    pub fn runtime_config(&self) -> RuntimeConfig {
        let mut config = RuntimeConfig::new();
        if let Some(fuel) = self.fuel {
            config.fuel(fuel);
        }
        if let Some(wall_clock) = self.wall_clock {
            config.wall_clock(wall_clock);
        }
        if let Some(mib) = self.max_memory_mib {
            config.max_memory_bytes(mib.saturating_mul(1024 * 1024));
        }
        if let Some(bytes) = self.max_log_bytes {
            config.max_log_bytes(bytes);
        }
        if let Some(bytes) = self.max_value_bytes {
            config.max_value_bytes(bytes);
        }
        if let Some(bytes) = self.max_error_bytes {
            config.max_error_bytes(bytes);
        }
        if let Some(bytes) = self.max_program_bytes {
            config.max_program_bytes(bytes);
        }
        if let Some(depth) = self.max_nesting_depth {
            config.max_nesting_depth(depth);
        }
        if let Some(mib) = self.max_total_memory_mib {
            config.max_total_memory_bytes(Some(mib.saturating_mul(1024 * 1024)));
        }
        config
    }

    /// The startup timeout in effect.
    pub fn startup_timeout(&self) -> Duration {
        self.startup_timeout.unwrap_or(DEFAULT_STARTUP_TIMEOUT)
    }

    /// The call timeout in effect.
    pub fn call_timeout(&self) -> Duration {
        self.call_timeout.unwrap_or(DEFAULT_CALL_TIMEOUT)
    }

    /// The caps on each upstream's `tools/list` in effect.
    pub fn listing_caps(&self) -> crate::upstream::ListingCaps {
        let defaults = crate::upstream::ListingCaps::default();
        crate::upstream::ListingCaps {
            pages: self.max_listing_pages.unwrap_or(defaults.pages),
            tools: self.max_listed_tools.unwrap_or(defaults.tools),
            bytes: self.max_listing_bytes.unwrap_or(defaults.bytes),
        }
    }

    /// The cap on one incoming message in effect.
    pub fn max_message_bytes(&self) -> usize {
        self.max_message_bytes.unwrap_or(DEFAULT_MAX_MESSAGE_BYTES)
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

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawLimits {
    fuel: Option<u64>,
    wall_clock_seconds: Option<f64>,
    max_memory_mib: Option<u64>,
    max_log_bytes: Option<usize>,
    max_value_bytes: Option<usize>,
    max_error_bytes: Option<usize>,
    max_program_bytes: Option<usize>,
    max_nesting_depth: Option<usize>,
    max_total_memory_mib: Option<u64>,
    startup_timeout_seconds: Option<f64>,
    call_timeout_seconds: Option<f64>,
    max_message_bytes: Option<usize>,
    max_output_bytes: Option<usize>,
    sdk_budget_bytes: Option<usize>,
    max_sdk_bytes: Option<usize>,
    max_listing_pages: Option<usize>,
    max_listed_tools: Option<usize>,
    max_listing_bytes: Option<usize>,
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
        Ok(Self {
            servers,
            require_approval,
            timeouts,
            limits,
            http,
            request_state,
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

/// The limits as written. The budgets are checked where every budget is,
/// by `RuntimeConfig::validate` when the runtime is built.
fn limits(raw: RawLimits) -> Result<Limits, String> {
    if raw.max_message_bytes == Some(0) {
        return Err("maxMessageBytes must be positive (got 0)".to_owned());
    }
    Ok(Limits {
        fuel: raw.fuel,
        wall_clock: optional_seconds("wallClockSeconds", raw.wall_clock_seconds)?,
        max_memory_mib: raw.max_memory_mib,
        max_log_bytes: raw.max_log_bytes,
        max_value_bytes: raw.max_value_bytes,
        max_error_bytes: raw.max_error_bytes,
        max_program_bytes: raw.max_program_bytes,
        max_nesting_depth: raw.max_nesting_depth,
        max_total_memory_mib: raw.max_total_memory_mib,
        startup_timeout: optional_seconds("startupTimeoutSeconds", raw.startup_timeout_seconds)?,
        call_timeout: optional_seconds("callTimeoutSeconds", raw.call_timeout_seconds)?,
        max_message_bytes: raw.max_message_bytes,
        max_output_bytes: positive("maxOutputBytes", raw.max_output_bytes)?,
        sdk_budget_bytes: raw.sdk_budget_bytes,
        max_sdk_bytes: raw.max_sdk_bytes,
        max_listing_pages: positive("maxListingPages", raw.max_listing_pages)?,
        max_listed_tools: positive("maxListedTools", raw.max_listed_tools)?,
        max_listing_bytes: positive("maxListingBytes", raw.max_listing_bytes)?,
        disclosure: None,
        trace: None,
    })
}

fn positive(key: &str, value: Option<usize>) -> Result<Option<usize>, String> {
    match value {
        Some(0) => Err(format!("{key} must be positive (got 0)")),
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests;
