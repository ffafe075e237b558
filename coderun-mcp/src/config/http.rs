//! The `http` section of the configuration: the settings of `coderun mcp
//! --listen` (the browser origins it accepts, the variable holding its
//! bearer token, what it gives slow and idle clients), and the validation
//! of the flags that extend them.

use std::time::Duration;

use serde::Deserialize;

/// Connections served at once unless `http.maxConnections` says otherwise.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// The time a client has to send a request's headers (and, on an idle
/// keep-alive connection, to start the next request) unless
/// `http.headerTimeoutSecs` says otherwise.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The time a client has to send a request's body unless
/// `http.bodyTimeoutSecs` says otherwise.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// The most `http.maxConnections` may be.
const MAX_CONNECTIONS_CAP: u64 = 100_000;
/// The longest either timeout may be, in seconds.
const MAX_TIMEOUT_SECS: f64 = 3600.0;

/// The browser origins `coderun mcp --listen` accepts without
/// `--allow-origin`: pages served from this machine, on any port.
pub const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// The settings of the streamable HTTP server, validated: the browser
/// origins it accepts beyond [`LOOPBACK_ORIGINS`], the environment
/// variable holding the bearer token clients must send, and the cap on
/// connections and the time clients have to send a request.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpConfig {
    allowed_origins: Vec<String>,
    auth_token_env: Option<String>,
    max_connections: usize,
    header_timeout: Duration,
    body_timeout: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            allowed_origins: Vec::new(),
            auth_token_env: None,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
        }
    }
}

impl HttpConfig {
    /// The most connections served at once; past it, a new connection is
    /// answered 503 and closed.
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// The time a client has to send a request's headers, or to start its
    /// next request on a kept-alive connection; then the connection is
    /// closed.
    pub fn header_timeout(&self) -> Duration {
        self.header_timeout
    }

    /// The time a client has to send a request's body, from its headers;
    /// then it gets 408.
    pub fn body_timeout(&self) -> Duration {
        self.body_timeout
    }

    /// The origins accepted besides the loopback ones, normalised (an
    /// origin without a port names its scheme's default port).
    pub fn allowed_origins(&self) -> &[String] {
        &self.allowed_origins
    }

    /// The environment variable holding the bearer token, if clients must
    /// authenticate.
    pub fn auth_token_env(&self) -> Option<&str> {
        self.auth_token_env.as_deref()
    }

    /// These settings with the command line's: each `--allow-origin` added
    /// to the origins, and `--auth-token-env` replacing the file's variable.
    pub fn with_flags(
        &self,
        allow_origins: &[String],
        auth_token_env: Option<&str>,
    ) -> Result<HttpConfig, String> {
        let mut config = self.clone();
        for value in allow_origins {
            let origin = origin("--allow-origin", value)?;
            if !config.allowed_origins.contains(&origin) {
                config.allowed_origins.push(origin);
            }
        }
        if let Some(name) = auth_token_env {
            config.auth_token_env = Some(env_name("--auth-token-env", name)?);
        }
        Ok(config)
    }
}

/// Validates a browser origin given under `key`: `scheme://host[:port]`
/// with scheme `http` or `https` and no path, or `scheme://host:*` for any
/// port. Returns it normalised: lowercase, and with the scheme's default
/// port when it names none (browsers leave the default port out of
/// `Origin`, so `https://app.example.com` means port 443).
pub fn origin(key: &str, value: &str) -> Result<String, String> {
    let invalid = |why: &str| {
        format!(
            "{key} takes an origin like https://app.example.com or http://localhost:*, {why} \
             (got {value:?})"
        )
    };
    let lower = value.trim().to_ascii_lowercase();
    let (scheme, rest) = lower
        .split_once("://")
        .ok_or_else(|| invalid("with a scheme"))?;
    let default_port = match scheme {
        "http" => 80,
        "https" => 443,
        _ => return Err(invalid("with scheme http or https")),
    };
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if authority.is_empty() || authority.contains(['/', '?', '#', '@']) {
        return Err(invalid("a scheme and a host without a path"));
    }
    let (host, port) = split_host_port(authority).ok_or_else(|| invalid("with a valid host"))?;
    let port = match port {
        None => default_port.to_string(),
        Some("*") => "*".to_owned(),
        Some(port) => port
            .parse::<u16>()
            .map_err(|_| invalid("with a port from 0 to 65535 or *"))?
            .to_string(),
    };
    Ok(format!("{scheme}://{host}:{port}"))
}

/// `host`, `host:port`, `[v6]` or `[v6]:port` → host (IPv6 in brackets) and
/// the port text, if any.
fn split_host_port(authority: &str) -> Option<(&str, Option<&str>)> {
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        let port = match &authority[end + 1..] {
            "" => None,
            rest => Some(rest.strip_prefix(':')?),
        };
        (&authority[..=end], port)
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let valid_host = host.len() > 2 && host.starts_with('[')
        || !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    valid_host.then_some((host, port))
}

/// Validates the name of an environment variable given under `key`.
fn env_name(key: &str, name: &str) -> Result<String, String> {
    if name.is_empty() || name.contains(['=', '\0']) {
        return Err(format!(
            "{key} takes the name of an environment variable, like CODERUN_TOKEN (got {name:?})"
        ));
    }
    Ok(name.to_owned())
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct RawHttp {
    #[serde(default)]
    allowed_origins: Vec<String>,
    auth_token_env: Option<String>,
    max_connections: Option<u64>,
    header_timeout_secs: Option<f64>,
    body_timeout_secs: Option<f64>,
}

/// A timeout in seconds under `key`: more than 0, at most an hour.
fn timeout(key: &str, secs: Option<f64>, default: Duration) -> Result<Duration, String> {
    match secs {
        None => Ok(default),
        Some(secs) if secs > 0.0 && secs <= MAX_TIMEOUT_SECS => Ok(Duration::from_secs_f64(secs)),
        Some(secs) => Err(format!(
            "{key} takes seconds, more than 0 and at most {MAX_TIMEOUT_SECS} (got {secs})"
        )),
    }
}

impl HttpConfig {
    /// Validates the file's `http` section.
    pub(super) fn from_raw(raw: RawHttp) -> Result<HttpConfig, String> {
        let mut allowed_origins = Vec::new();
        for (index, value) in raw.allowed_origins.iter().enumerate() {
            let origin = origin(&format!("http.allowedOrigins[{index}]"), value)?;
            if !allowed_origins.contains(&origin) {
                allowed_origins.push(origin);
            }
        }
        let auth_token_env = raw
            .auth_token_env
            .map(|name| env_name("http.authTokenEnv", &name))
            .transpose()?;
        let max_connections = match raw.max_connections {
            None => DEFAULT_MAX_CONNECTIONS,
            Some(n) if (1..=MAX_CONNECTIONS_CAP).contains(&n) => n as usize,
            Some(n) => {
                return Err(format!(
                    "http.maxConnections takes a number from 1 to {MAX_CONNECTIONS_CAP} (got {n})"
                ));
            }
        };
        Ok(HttpConfig {
            allowed_origins,
            auth_token_env,
            max_connections,
            header_timeout: timeout(
                "http.headerTimeoutSecs",
                raw.header_timeout_secs,
                DEFAULT_HEADER_TIMEOUT,
            )?,
            body_timeout: timeout(
                "http.bodyTimeoutSecs",
                raw.body_timeout_secs,
                DEFAULT_BODY_TIMEOUT,
            )?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_front_door_limits_have_defaults_and_bounds() {
        let config = HttpConfig::from_raw(RawHttp::default()).expect("defaults");
        assert_eq!(config.max_connections(), DEFAULT_MAX_CONNECTIONS);
        assert_eq!(config.header_timeout(), DEFAULT_HEADER_TIMEOUT);
        assert_eq!(config.body_timeout(), DEFAULT_BODY_TIMEOUT);
        assert_eq!(config, HttpConfig::default());
        let raw = |connections, header, body| RawHttp {
            max_connections: connections,
            header_timeout_secs: header,
            body_timeout_secs: body,
            ..RawHttp::default()
        };
        let set = HttpConfig::from_raw(raw(Some(10), Some(0.5), Some(2.0))).expect("valid");
        assert_eq!(set.max_connections(), 10);
        assert_eq!(set.header_timeout(), Duration::from_millis(500));
        assert_eq!(set.body_timeout(), Duration::from_secs(2));
        for (bad, needle) in [
            (
                raw(Some(0), None, None),
                "http.maxConnections takes a number",
            ),
            (raw(Some(1 << 40), None, None), "http.maxConnections"),
            (
                raw(None, Some(0.0), None),
                "http.headerTimeoutSecs takes seconds",
            ),
            (
                raw(None, None, Some(f64::NAN)),
                "http.bodyTimeoutSecs takes seconds",
            ),
            (raw(None, Some(1e9), None), "at most 3600"),
        ] {
            let error = HttpConfig::from_raw(bad).expect_err(needle);
            assert!(error.contains(needle), "{error}");
        }
    }

    #[test]
    fn origins_are_normalised_or_refused_naming_the_key() {
        let good = [
            ("http://localhost", "http://localhost:80"),
            ("HTTPS://Example.com/", "https://example.com:443"),
            ("http://127.0.0.1:*", "http://127.0.0.1:*"),
            ("https://[::1]:8443", "https://[::1]:8443"),
        ];
        for (value, expected) in good {
            assert_eq!(origin("--allow-origin", value).as_deref(), Ok(expected));
        }
        for value in [
            "example.com",
            "ftp://example.com",
            "https://example.com/app",
            "https://",
            "https://example.com:99999",
            "https://user@example.com",
            "https://[::1",
        ] {
            let error = origin("--allow-origin", value).expect_err(value);
            assert!(
                error.starts_with("--allow-origin takes an origin"),
                "{error}"
            );
            assert!(error.contains(&format!("{value:?}")), "{error}");
        }
    }
}
