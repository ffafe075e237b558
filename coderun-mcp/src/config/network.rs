//! The `network` section of the configuration: what `run_code`'s programs
//! may reach with `fetch` (the runtime's [`NetworkPolicy`]). Secrets are
//! read from the environment or a file here, so that the file itself holds
//! none.
//!
//! ```json
//! "network": {
//!   "allow": ["https://api.github.com",
//!             {"origin": "http://127.0.0.1:8080", "methods": ["GET"], "paths": ["/api/"]}],
//!   "secrets": [{"name": "github", "env": "GITHUB_TOKEN", "origins": ["https://api.github.com"]}],
//!   "allowLoopback": true,
//!   "maxRequests": 50, "maxInFlight": 6, "maxResponseBytes": 10485760,
//!   "maxRequestBodyBytes": 1048576, "timeoutSeconds": 30, "maxRedirects": 20
//! }
//! ```

use std::path::PathBuf;

use coderun_runtime::{AllowRule, NetworkPolicy, Secret};
use serde::Deserialize;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct RawNetwork {
    #[serde(default)]
    allow: Vec<RawRule>,
    #[serde(default)]
    secrets: Vec<RawSecret>,
    allow_loopback: Option<bool>,
    allow_private: Option<bool>,
    max_requests: Option<u32>,
    max_in_flight: Option<u32>,
    max_response_bytes: Option<u64>,
    max_request_body_bytes: Option<u64>,
    timeout_seconds: Option<f64>,
    max_redirects: Option<u32>,
}

/// An origin alone, or a whole rule.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawRule {
    Origin(String),
    Rule(AllowRule),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSecret {
    name: String,
    /// The environment variable holding the value.
    env: Option<String>,
    /// Or a file holding it (a trailing newline is dropped).
    file: Option<PathBuf>,
    #[serde(default)]
    origins: Vec<String>,
}

/// The policy the section describes, checked; the error names the key.
pub(super) fn network(raw: RawNetwork) -> Result<NetworkPolicy, String> {
    let mut policy = NetworkPolicy::new();
    for rule in raw.allow {
        policy = policy.allow(match rule {
            RawRule::Origin(origin) => AllowRule::new(origin),
            RawRule::Rule(rule) => rule,
        });
    }
    for secret in raw.secrets {
        let name = &secret.name;
        let value = match (&secret.env, &secret.file) {
            (Some(variable), None) => std::env::var(variable).map_err(|_| {
                format!("secrets[{name}]: the environment variable {variable} is not set")
            })?,
            (None, Some(file)) => std::fs::read_to_string(file)
                .map_err(|error| {
                    format!("secrets[{name}]: cannot read {}: {error}", file.display())
                })?
                .trim_end_matches(['\n', '\r'])
                .to_owned(),
            _ => {
                return Err(format!(
                    "secrets[{name}]: give exactly one of \"env\" and \"file\""
                ));
            }
        };
        let mut compiled = Secret::new(name.clone(), value);
        for origin in secret.origins {
            compiled = compiled.origin(origin);
        }
        policy = policy.secret(compiled);
    }
    let defaults = NetworkPolicy::default();
    policy.allow_loopback = raw.allow_loopback.unwrap_or(defaults.allow_loopback);
    policy.allow_private = raw.allow_private.unwrap_or(defaults.allow_private);
    policy.max_requests = raw.max_requests.unwrap_or(defaults.max_requests);
    policy.max_in_flight = raw.max_in_flight.unwrap_or(defaults.max_in_flight);
    policy.max_response_bytes = raw
        .max_response_bytes
        .unwrap_or(defaults.max_response_bytes);
    policy.max_request_body_bytes = raw
        .max_request_body_bytes
        .unwrap_or(defaults.max_request_body_bytes);
    if let Some(seconds) = raw.timeout_seconds {
        let timeout = super::seconds("timeoutSeconds", seconds)?;
        policy = policy.timeout(timeout);
    }
    policy.max_redirects = raw.max_redirects.unwrap_or(defaults.max_redirects);
    policy.validate()?;
    Ok(policy)
}
