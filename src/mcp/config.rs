//! The configuration of `coderun mcp`: the `mcpServers` JSON format MCP
//! clients already use, plus coderun's own `limits` section.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
//!     "search": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ..."}}
//!   },
//!   "limits": {"wallClockSeconds": 60, "callTimeoutSeconds": 45}
//! }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::runtime::RuntimeConfig;

/// The default time an upstream has to start and list its tools.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// The default time an upstream has to answer one tool call.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(20);

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
    /// Budgets of programs and upstream calls.
    pub limits: Limits,
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
    /// Time an upstream has to start and list its tools
    /// ([`DEFAULT_STARTUP_TIMEOUT`] when absent).
    pub startup_timeout: Option<Duration>,
    /// Time an upstream has to answer one call ([`DEFAULT_CALL_TIMEOUT`]
    /// when absent); a call it has not answered by then rejects in the
    /// program with a message naming the upstream.
    pub call_timeout: Option<Duration>,
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
            startup_timeout: overrides.startup_timeout.or(self.startup_timeout),
            call_timeout: overrides.call_timeout.or(self.call_timeout),
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
    #[serde(default)]
    limits: RawLimits,
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
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawLimits {
    fuel: Option<u64>,
    wall_clock_seconds: Option<f64>,
    max_memory_mib: Option<u64>,
    max_log_bytes: Option<usize>,
    max_value_bytes: Option<usize>,
    startup_timeout_seconds: Option<f64>,
    call_timeout_seconds: Option<f64>,
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
        for (name, server) in raw_servers {
            if server.disabled {
                continue;
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
        let limits = limits(raw.limits)
            .map_err(|message| ConfigError::new(path, format!("limits.{message}")))?;
        Ok(Self { servers, limits })
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

fn limits(raw: RawLimits) -> Result<Limits, String> {
    if raw.fuel == Some(0) {
        return Err("fuel must be positive".to_owned());
    }
    Ok(Limits {
        fuel: raw.fuel,
        wall_clock: optional_seconds("wallClockSeconds", raw.wall_clock_seconds)?,
        max_memory_mib: raw.max_memory_mib,
        max_log_bytes: raw.max_log_bytes,
        max_value_bytes: raw.max_value_bytes,
        startup_timeout: optional_seconds("startupTimeoutSeconds", raw.startup_timeout_seconds)?,
        call_timeout: optional_seconds("callTimeoutSeconds", raw.call_timeout_seconds)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<McpConfig, String> {
        McpConfig::parse(Path::new("servers.json"), text).map_err(|error| error.to_string())
    }

    #[test]
    fn reads_the_client_format_with_limits() {
        let config = parse(
            r#"{"mcpServers": {
                "fs": {"command": "node", "args": ["fs.js", "/tmp"], "env": {"A": "1"}},
                "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X": "y"}},
                "off": {"command": "nothing", "disabled": true}
              },
              "limits": {"wallClockSeconds": 1.5, "fuel": 10, "callTimeoutSeconds": 2}}"#,
        )
        .expect("valid");
        assert_eq!(config.servers.len(), 2);
        assert_eq!(config.servers["fs"].describe(), "node fs.js /tmp");
        assert!(
            matches!(&config.servers["web"], ServerSpec::Http { headers, .. } if headers["X"] == "y")
        );
        assert_eq!(config.limits.wall_clock, Some(Duration::from_millis(1500)));
        assert_eq!(config.limits.call_timeout(), Duration::from_secs(2));
        assert_eq!(config.limits.startup_timeout(), DEFAULT_STARTUP_TIMEOUT);
        assert_eq!(config.limits.runtime_config().get_fuel(), 10);
    }

    #[test]
    fn bad_configurations_name_the_key() {
        let cases = [
            ("{}", "no \"mcpServers\" object"),
            ("{\"mcpServers\": {}}", "no enabled server"),
            ("[1]", "not a valid mcpServers configuration"),
            ("{\"mcpServers\": {\"a\": {}}}", "mcpServers.a: has neither"),
            (
                "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"url\": \"http://h\"}}}",
                "mcpServers.a: has both",
            ),
            (
                "{\"mcpServers\": {\"a\": {\"url\": \"ftp://h\"}}}",
                "mcpServers.a: \"url\" must start with http",
            ),
            (
                "{\"mcpServers\": {\"a\": {\"type\": \"sse\", \"url\": \"http://h\"}}}",
                "not supported",
            ),
            (
                "{\"mcpServers\": {\"a b\": {\"command\": \"x\"}}}",
                "mcpServers.a b: a server name may only use",
            ),
            (
                "{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"limits\": {\"wallClockSeconds\": -1}}",
                "limits.wallClockSeconds must be a positive number",
            ),
            (
                "{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"limits\": {\"fuell\": 1}}",
                "unknown field `fuell`",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text).expect_err(text);
            assert!(error.starts_with("servers.json: "), "{error}");
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
