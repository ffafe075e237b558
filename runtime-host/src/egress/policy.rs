//! A [`NetworkPolicy`] compiled: origins parsed once, secrets checked, and
//! the decisions the host makes about each hop of a request.

use std::time::Duration;

use reqwest::Url;
use reqwest::header::{HeaderName, HeaderValue};

use super::NetworkPolicy;
use super::address::Reach;

/// The longest placeholder name, and the shortest value worth scrubbing.
const MAX_SECRET_NAME_BYTES: usize = 64;
const MIN_SECRET_VALUE_BYTES: usize = 8;
/// How many allowed origins a refusal lists.
const LISTED_ORIGINS: usize = 8;

/// Why a request is refused when the policy allows nothing.
pub(crate) const CLOSED: &str = "refused by the network policy: it allows no network access (the \
                                  host decides which origins a program may reach)";

/// `scheme://host[:port]`, with a wildcard host or port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OriginPattern {
    scheme: String,
    host: HostPattern,
    /// `None`: any port.
    port: Option<u16>,
    /// As the policy wrote it, for messages.
    text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum HostPattern {
    Exact(String),
    /// Any subdomain of this domain.
    Subdomains(String),
}

impl OriginPattern {
    fn parse(text: &str) -> Result<Self, String> {
        let trimmed = text.strip_suffix('/').unwrap_or(text);
        let (scheme, rest) = trimmed
            .split_once("://")
            .ok_or_else(|| format!("'{text}' is not an origin (scheme://host[:port])"))?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(format!("'{text}': the scheme must be http or https"));
        }
        if rest.contains(['/', '?', '#', '@']) {
            return Err(format!(
                "'{text}' is not an origin: it has a path, query, fragment or credentials"
            ));
        }
        // The port is what follows the last colon outside brackets.
        let (host, port) = match rest.rfind(':') {
            Some(at) if !rest[at..].contains(']') => (&rest[..at], Some(&rest[at + 1..])),
            _ => (rest, None),
        };
        let (wildcard, host) = match host.strip_prefix("*.") {
            Some(domain) => (true, domain),
            None => (false, host),
        };
        let url = Url::parse(&format!("{scheme}://{host}/"))
            .map_err(|error| format!("'{text}': the host is invalid ({error})"))?;
        let normalised = url
            .host_str()
            .filter(|host| !host.is_empty())
            .ok_or_else(|| format!("'{text}' has no host"))?
            .to_owned();
        let port = match port {
            Some("*") => None,
            Some(digits) => Some(
                digits
                    .parse::<u16>()
                    .map_err(|_| format!("'{text}': the port must be 0 to 65535 or *"))?,
            ),
            None => url.port_or_known_default(),
        };
        let host = if wildcard {
            if normalised.starts_with('[') || normalised.parse::<std::net::Ipv4Addr>().is_ok() {
                return Err(format!("'{text}': an IP address cannot have a wildcard"));
            }
            HostPattern::Subdomains(normalised)
        } else {
            HostPattern::Exact(normalised)
        };
        Ok(Self {
            scheme,
            host,
            port,
            text: text.to_owned(),
        })
    }

    fn matches(&self, url: &Url) -> bool {
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return false;
        };
        if url.scheme() != self.scheme || self.port.is_some_and(|allowed| allowed != port) {
            return false;
        }
        match &self.host {
            HostPattern::Exact(exact) => host == exact,
            HostPattern::Subdomains(domain) => host
                .strip_suffix(domain.as_str())
                .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
        }
    }
}

/// One allow rule, compiled.
#[derive(Debug)]
struct Rule {
    origin: OriginPattern,
    /// Upper-cased; empty: any.
    methods: Vec<String>,
    paths: Vec<String>,
    headers: Vec<(HeaderName, String)>,
}

/// A secret, compiled.
#[derive(Debug)]
pub(crate) struct CompiledSecret {
    pub(crate) name: String,
    pub(crate) value: String,
    origins: Vec<OriginPattern>,
}

/// A [`NetworkPolicy`], checked and ready to decide.
#[derive(Debug)]
pub(crate) struct Policy {
    rules: Vec<Rule>,
    secrets: Vec<CompiledSecret>,
    pub(crate) reach: Reach,
    pub(crate) max_requests: u32,
    pub(crate) max_in_flight: u32,
    pub(crate) max_response_bytes: u64,
    pub(crate) max_request_body_bytes: u64,
    pub(crate) timeout: Duration,
    pub(crate) max_redirects: u32,
}

impl Policy {
    pub(crate) fn compile(policy: &NetworkPolicy) -> Result<Self, String> {
        let mut rules = Vec::with_capacity(policy.allow.len());
        for (index, rule) in policy.allow.iter().enumerate() {
            let key = |field: &str| format!("allow[{index}].{field}");
            let origin = OriginPattern::parse(&rule.origin)
                .map_err(|e| format!("{}: {e}", key("origin")))?;
            let mut methods = Vec::new();
            for method in &rule.methods {
                reqwest::Method::from_bytes(method.as_bytes())
                    .map_err(|_| format!("{}: '{method}' is not a method", key("methods")))?;
                methods.push(method.to_ascii_uppercase());
            }
            for path in &rule.paths {
                if !path.starts_with('/') {
                    return Err(format!("{}: '{path}' does not start with /", key("paths")));
                }
            }
            let mut headers = Vec::new();
            for (name, value) in &rule.headers {
                let name = HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| format!("{}: '{name}' is not a header name", key("headers")))?;
                if HeaderValue::from_str(value).is_err() {
                    return Err(format!(
                        "{}: the value of {name} is not a header value",
                        key("headers")
                    ));
                }
                headers.push((name, value.clone()));
            }
            rules.push(Rule {
                origin,
                methods,
                paths: rule.paths.clone(),
                headers,
            });
        }
        let mut secrets: Vec<CompiledSecret> = Vec::with_capacity(policy.secrets.len());
        for secret in &policy.secrets {
            let name = &secret.name;
            let key = format!("secrets[{name}]");
            let valid_name = !name.is_empty()
                && name.len() <= MAX_SECRET_NAME_BYTES
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
            if !valid_name {
                return Err(format!(
                    "secrets: '{name}' is not a secret name (1 to 64 letters, digits, _ - .)"
                ));
            }
            if secrets.iter().any(|other| &other.name == name) {
                return Err(format!("{key}: the name is used twice"));
            }
            let value = secret.value();
            if value.len() < MIN_SECRET_VALUE_BYTES {
                return Err(format!(
                    "{key}.value: shorter than {MIN_SECRET_VALUE_BYTES} bytes, it could not be \
                     told apart where the host removes it from responses"
                ));
            }
            if HeaderValue::from_str(value).is_err() {
                return Err(format!(
                    "{key}.value: it holds a byte a header value cannot"
                ));
            }
            let origins = secret
                .origins
                .iter()
                .map(|origin| {
                    OriginPattern::parse(origin).map_err(|e| format!("{key}.origins: {e}"))
                })
                .collect::<Result<_, _>>()?;
            secrets.push(CompiledSecret {
                name: name.clone(),
                value: value.to_owned(),
                origins,
            });
        }
        let positive = |key: &str, value: u64| {
            if value == 0 {
                Err(format!("{key}: must be positive"))
            } else {
                Ok(())
            }
        };
        positive("maxInFlight", u64::from(policy.max_in_flight))?;
        positive("maxResponseBytes", policy.max_response_bytes)?;
        positive("timeoutMs", policy.timeout_ms)?;
        Ok(Self {
            rules,
            secrets,
            reach: Reach {
                loopback: policy.allow_loopback,
                private: policy.allow_private,
            },
            max_requests: policy.max_requests,
            max_in_flight: policy.max_in_flight,
            max_response_bytes: policy.max_response_bytes,
            max_request_body_bytes: policy.max_request_body_bytes,
            timeout: Duration::from_millis(policy.timeout_ms),
            max_redirects: policy.max_redirects,
        })
    }

    /// The policy that allows nothing, for instances that run no program.
    pub(crate) fn closed() -> Self {
        Self {
            rules: Vec::new(),
            secrets: Vec::new(),
            reach: Reach {
                loopback: false,
                private: false,
            },
            max_requests: 0,
            max_in_flight: 1,
            max_response_bytes: 0,
            max_request_body_bytes: 0,
            timeout: Duration::ZERO,
            max_redirects: 0,
        }
    }

    /// Whether the policy allows nothing at all.
    pub(crate) fn is_closed(&self) -> bool {
        self.rules.is_empty()
    }

    /// The rule allowing `method` on `url`, or why none does. The headers
    /// of the first rule that allows it are what the host adds.
    pub(crate) fn allows(
        &self,
        method: &str,
        url: &Url,
    ) -> Result<&[(HeaderName, String)], String> {
        if self.rules.is_empty() {
            return Err(CLOSED.into());
        }
        let origin = url.origin().ascii_serialization();
        let same_origin: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|rule| rule.origin.matches(url))
            .collect();
        if same_origin.is_empty() {
            let listed: Vec<&str> = self
                .rules
                .iter()
                .take(LISTED_ORIGINS)
                .map(|rule| rule.origin.text.as_str())
                .collect();
            let more = if self.rules.len() > LISTED_ORIGINS {
                ", …"
            } else {
                ""
            };
            return Err(format!(
                "refused by the network policy: no rule allows the origin {origin} (it allows {}{more})",
                listed.join(", ")
            ));
        }
        let method_allowed =
            |rule: &Rule| rule.methods.is_empty() || rule.methods.iter().any(|m| m == method);
        // A path with an encoded slash or backslash matches no prefix: a
        // server that decodes it would see other segments than the prefix
        // checked (`/v1%2F..%2Fadmin`).
        let path = url.path();
        let encoded_separator = ["%2f", "%2F", "%5c", "%5C"]
            .iter()
            .any(|encoded| path.contains(encoded));
        let path_allowed = |rule: &Rule| {
            rule.paths.is_empty()
                || (!encoded_separator
                    && rule
                        .paths
                        .iter()
                        .any(|prefix| path.starts_with(prefix.as_str())))
        };
        if let Some(rule) = same_origin
            .iter()
            .find(|rule| method_allowed(rule) && path_allowed(rule))
        {
            return Ok(&rule.headers);
        }
        if !same_origin.iter().any(|rule| method_allowed(rule)) {
            let methods: Vec<&str> = same_origin
                .iter()
                .flat_map(|rule| rule.methods.iter().map(String::as_str))
                .collect();
            return Err(format!(
                "refused by the network policy: {origin} allows the methods {}, not {method}",
                methods.join(", ")
            ));
        }
        let paths: Vec<&str> = same_origin
            .iter()
            .filter(|rule| method_allowed(rule))
            .flat_map(|rule| rule.paths.iter().map(String::as_str))
            .collect();
        Err(format!(
            "refused by the network policy: {origin} allows {method} only on paths under {}, not {}",
            paths.join(", "),
            crate::output::shorten(url.path(), 200)
        ))
    }

    /// `template` with every `{{secret:NAME}}` replaced by the secret's
    /// value, for a request to `url`; the secrets used are added to `used`.
    /// Refuses a secret the policy does not define, or does not allow to
    /// `url`'s origin.
    pub(crate) fn substitute<'a>(
        &'a self,
        template: &str,
        url: &Url,
        used: &mut Vec<&'a CompiledSecret>,
    ) -> Result<String, String> {
        const OPEN: &str = "{{secret:";
        let mut out = String::with_capacity(template.len());
        let mut rest = template;
        while let Some(at) = rest.find(OPEN) {
            out.push_str(&rest[..at]);
            let after = &rest[at + OPEN.len()..];
            let Some(end) = after.find("}}") else {
                out.push_str(&rest[at..]);
                rest = "";
                break;
            };
            let name = &after[..end];
            let Some(secret) = self.secrets.iter().find(|secret| secret.name == name) else {
                return Err(format!(
                    "refused: a header names the secret '{}', which the network policy does not define",
                    crate::output::shorten(name, MAX_SECRET_NAME_BYTES)
                ));
            };
            if !secret.origins.iter().any(|origin| origin.matches(url)) {
                let listed: Vec<&str> = secret.origins.iter().map(|o| o.text.as_str()).collect();
                return Err(format!(
                    "refused by the network policy: the secret '{name}' may not be sent to {} \
                     (it may go to: {})",
                    url.origin().ascii_serialization(),
                    if listed.is_empty() {
                        "no origin".to_owned()
                    } else {
                        listed.join(", ")
                    }
                ));
            }
            out.push_str(&secret.value);
            if !used.iter().any(|seen| std::ptr::eq(*seen, secret)) {
                used.push(secret);
            }
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// `bytes` with every occurrence of each secret's value replaced by its
/// placeholder.
pub(crate) fn scrub_bytes(bytes: Vec<u8>, secrets: &[&CompiledSecret]) -> Vec<u8> {
    let mut bytes = bytes;
    for secret in secrets {
        let needle = secret.value.as_bytes();
        if needle.is_empty() || !contains(&bytes, needle) {
            continue;
        }
        let placeholder = format!("{{{{secret:{}}}}}", secret.name);
        let mut out = Vec::with_capacity(bytes.len());
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at..].starts_with(needle) {
                out.extend_from_slice(placeholder.as_bytes());
                at += needle.len();
            } else {
                out.push(bytes[at]);
                at += 1;
            }
        }
        bytes = out;
    }
    bytes
}

/// `text` with the secrets' values replaced by their placeholders.
pub(crate) fn scrub_text(text: String, secrets: &[&CompiledSecret]) -> String {
    let mut text = text;
    for secret in secrets {
        if text.contains(secret.value.as_str()) {
            text = text.replace(
                secret.value.as_str(),
                &format!("{{{{secret:{}}}}}", secret.name),
            );
        }
    }
    text
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

#[cfg(test)]
mod tests;
