//! The `http` section of the configuration: the settings of `coderun mcp
//! --listen` (the browser origins it accepts, the variable holding its
//! bearer token), and the validation of the flags that extend them.

use serde::Deserialize;

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
/// origins it accepts beyond [`LOOPBACK_ORIGINS`], and the environment
/// variable holding the bearer token clients must send.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HttpConfig {
    allowed_origins: Vec<String>,
    auth_token_env: Option<String>,
}

impl HttpConfig {
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
        Ok(HttpConfig {
            allowed_origins,
            auth_token_env,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
