//! `network=`: a dict describing a [`NetworkPolicy`], for `Runtime(...)`
//! and for one run. Keys are Python's (snake_case, seconds); the policy's
//! own validator words the errors.
//!
//! ```python
//! network = {
//!     "allow": ["https://api.github.com",
//!               {"origin": "http://127.0.0.1:8080", "methods": ["GET"], "paths": ["/api/"]}],
//!     "secrets": {"github": {"value": token, "origins": ["https://api.github.com"]}},
//!     "allow_loopback": True,
//!     "timeout": 10.0,
//! }
//! ```

use std::time::Duration;

use coderun_runtime::{AllowRule, NetworkPolicy, Secret};
use pyo3::prelude::*;
use serde_json::Value;

use crate::{ConfigError, convert};

const KEYS: &str = "allow, secrets, allow_loopback, allow_private, max_requests, max_in_flight, \
                    max_response_bytes, max_request_body_bytes, timeout, max_redirects";

fn invalid(message: String) -> PyErr {
    ConfigError::new_err(format!("network: {message}"))
}

fn integer<T: TryFrom<u64>>(key: &str, value: &Value) -> PyResult<T> {
    value
        .as_u64()
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| {
            invalid(format!(
                "{key} must be a non-negative integer (got {value})"
            ))
        })
}

fn flag(key: &str, value: &Value) -> PyResult<bool> {
    value
        .as_bool()
        .ok_or_else(|| invalid(format!("{key} must be True or False (got {value})")))
}

fn strings(key: &str, value: &Value) -> PyResult<Vec<String>> {
    let items = value
        .as_array()
        .ok_or_else(|| invalid(format!("{key} must be a list of strings")))?;
    items
        .iter()
        .map(|item| {
            item.as_str()
                .map(str::to_owned)
                .ok_or_else(|| invalid(format!("{key} must be a list of strings (got {item})")))
        })
        .collect()
}

/// The policy `object` describes, validated; `None` when it is `None`.
pub(crate) fn policy(object: Option<&Bound<'_, PyAny>>) -> PyResult<Option<NetworkPolicy>> {
    let Some(object) = object.filter(|object| !object.is_none()) else {
        return Ok(None);
    };
    let value = convert::from_python(object).map_err(invalid)?;
    let Value::Object(map) = value else {
        return Err(invalid("must be a dict".into()));
    };
    let mut policy = NetworkPolicy::new();
    for (key, value) in &map {
        match key.as_str() {
            "allow" => {
                let rules = value
                    .as_array()
                    .ok_or_else(|| invalid("allow must be a list".into()))?;
                for rule in rules {
                    policy = policy.allow(match rule {
                        Value::String(origin) => AllowRule::new(origin.as_str()),
                        _ => {
                            serde_json::from_value::<AllowRule>(rule.clone()).map_err(|error| {
                                invalid(format!(
                                    "allow: {rule} is neither an origin nor a rule \
                                 {{origin, methods, paths, headers}}: {error}"
                                ))
                            })?
                        }
                    });
                }
            }
            "secrets" => {
                let secrets = value.as_object().ok_or_else(|| {
                    invalid(
                        "secrets must be a dict {name: {\"value\": …, \"origins\": […]}}".into(),
                    )
                })?;
                for (name, secret) in secrets {
                    let secret_value =
                        secret.get("value").and_then(Value::as_str).ok_or_else(|| {
                            invalid(format!("secrets[{name}] needs a \"value\" string"))
                        })?;
                    let mut built = Secret::new(name.as_str(), secret_value);
                    if let Some(origins) = secret.get("origins") {
                        for origin in strings(&format!("secrets[{name}].origins"), origins)? {
                            built = built.origin(origin);
                        }
                    }
                    policy = policy.secret(built);
                }
            }
            "allow_loopback" => policy.allow_loopback = flag(key, value)?,
            "allow_private" => policy.allow_private = flag(key, value)?,
            "max_requests" => policy.max_requests = integer(key, value)?,
            "max_in_flight" => policy.max_in_flight = integer(key, value)?,
            "max_redirects" => policy.max_redirects = integer(key, value)?,
            "max_response_bytes" => policy.max_response_bytes = integer(key, value)?,
            "max_request_body_bytes" => policy.max_request_body_bytes = integer(key, value)?,
            "timeout" => {
                let seconds = value
                    .as_f64()
                    .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
                    .ok_or_else(|| {
                        invalid(format!(
                            "timeout must be a non-negative number of seconds (got {value})"
                        ))
                    })?;
                policy = policy.timeout(seconds);
            }
            other => {
                return Err(invalid(format!(
                    "unknown key {other:?} (the keys are {KEYS})"
                )));
            }
        }
    }
    policy.validate().map_err(invalid)?;
    Ok(Some(policy))
}
