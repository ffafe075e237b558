//! Egress: what a run's `fetch` may reach, decided by the host alone.
//!
//! The embedder sets a [`NetworkPolicy`] for the runtime
//! ([`RuntimeConfig::network`](crate::RuntimeConfig::network)) or for one
//! request ([`CodeRunRequest::network`](crate::CodeRunRequest::network));
//! the default allows nothing. A request the program makes with `fetch` is
//! a call like a binding's: numbered with them, recorded and replayed with
//! them. The host checks it against the policy (origin, method, path),
//! resolves the name itself and refuses private, loopback and link-local
//! addresses after resolution (so that DNS rebinding cannot get past the
//! check), follows redirects itself and checks every hop again, sends it
//! with reqwest on rustls, and reads the response to its end under the
//! policy's caps. Secrets enter requests on the host, and leave responses
//! on the host: the program, its logs and the run's record see only the
//! placeholder `{{secret:NAME}}`.
//!
//! - `policy`: the policy compiled (origins parsed, secrets checked), and
//!   the decisions it makes about one hop.
//! - `address`: which addresses are refused, and the resolver that refuses
//!   them.
//! - `exchange`: one fetch, from the guest's request to the response the
//!   program gets.
//! - `record`: how a fetch is kept in a run's record.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

mod address;
mod exchange;
mod policy;
mod record;
mod run;

pub(crate) use exchange::Answer;
pub(crate) use policy::Policy;
pub(crate) use record::{
    FETCH_FUNCTION, describe_request, name_recorded, recorded_response, split_outcome,
};
pub(crate) use run::RunEgress;

/// What the programs of a runtime, or of one request, may reach with
/// `fetch`. The default allows nothing.
///
/// ```
/// use std::time::Duration;
/// use coderun_runtime::{AllowRule, NetworkPolicy, Secret};
///
/// let policy = NetworkPolicy::new()
///     .allow(AllowRule::new("https://api.github.com").methods(["GET"]))
///     .allow("https://*.example.com")
///     .secret(Secret::new("github", "ghp_example_token").origin("https://api.github.com"))
///     .timeout(Duration::from_secs(10));
/// assert_eq!(policy.allow.len(), 2);
/// ```
///
/// A program sends a secret by writing its placeholder in a header value
/// (`Authorization: Bearer {{secret:github}}`), or a rule adds the header
/// itself ([`AllowRule::header`]). The host substitutes the value only on
/// the way out to an origin the secret allows, refuses the request
/// anywhere else, and replaces the value with the placeholder wherever it
/// appears in the response (headers, body, final URL).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkPolicy {
    /// The origins a request may go to, each with its methods, paths and
    /// added headers. A request must match one rule at every hop.
    pub allow: Vec<AllowRule>,
    /// The secrets requests may carry, each with the origins it may go to.
    pub secrets: Vec<Secret>,
    /// Whether loopback addresses (127.0.0.0/8, ::1), and names resolving
    /// to them, may be reached: for tests and local services. Default false.
    pub allow_loopback: bool,
    /// Whether private addresses (10/8, 172.16/12, 192.168/16, 100.64/10,
    /// fc00::/7) may be reached. Default false. Link-local addresses
    /// (169.254/16, where cloud metadata services live, and fe80::/10) and
    /// unspecified, multicast and reserved ones never may.
    pub allow_private: bool,
    /// The most `fetch` calls one run may make, refused ones included.
    /// Default 50.
    pub max_requests: u32,
    /// The most requests of one run the host sends at once, or holds the
    /// answer of until the program is handed it; the others wait their
    /// turn. So one run's responses hold at most `max_in_flight ×
    /// max_response_bytes` of host memory. Default 6.
    pub max_in_flight: u32,
    /// The most bytes of a response body, decompressed. Default 10 MiB.
    pub max_response_bytes: u64,
    /// The most bytes of a request body. Default 1 MiB.
    pub max_request_body_bytes: u64,
    /// The most milliseconds one request may take, redirects and body
    /// included, once it is its turn to be sent. It also counts against the
    /// run's wall clock. Default 30,000.
    pub timeout_ms: u64,
    /// The most redirects one request follows. Default 20 (the Fetch
    /// Standard's).
    pub max_redirects: u32,
}

impl Default for NetworkPolicy {
    fn default() -> Self {
        Self {
            allow: Vec::new(),
            secrets: Vec::new(),
            allow_loopback: false,
            allow_private: false,
            max_requests: 50,
            max_in_flight: 6,
            max_response_bytes: 10 * 1024 * 1024,
            max_request_body_bytes: 1024 * 1024,
            timeout_ms: 30_000,
            max_redirects: 20,
        }
    }
}

impl fmt::Debug for NetworkPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NetworkPolicy")
            .field("allow", &self.allow)
            .field("secrets", &self.secrets)
            .field("allow_loopback", &self.allow_loopback)
            .field("allow_private", &self.allow_private)
            .field("max_requests", &self.max_requests)
            .field("max_in_flight", &self.max_in_flight)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("max_request_body_bytes", &self.max_request_body_bytes)
            .field("timeout_ms", &self.timeout_ms)
            .field("max_redirects", &self.max_redirects)
            .finish()
    }
}

impl NetworkPolicy {
    /// A policy that allows nothing (the default).
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows `rule`: an origin (`"https://api.github.com"`), or an
    /// [`AllowRule`] with methods, paths and headers.
    pub fn allow(mut self, rule: impl Into<AllowRule>) -> Self {
        self.allow.push(rule.into());
        self
    }

    /// Adds a secret requests may carry.
    pub fn secret(mut self, secret: Secret) -> Self {
        self.secrets.push(secret);
        self
    }

    /// See [`allow_loopback`](Self#structfield.allow_loopback).
    pub fn allow_loopback(mut self, allow: bool) -> Self {
        self.allow_loopback = allow;
        self
    }

    /// See [`allow_private`](Self#structfield.allow_private).
    pub fn allow_private(mut self, allow: bool) -> Self {
        self.allow_private = allow;
        self
    }

    /// See [`max_requests`](Self#structfield.max_requests).
    pub fn max_requests(mut self, max: u32) -> Self {
        self.max_requests = max;
        self
    }

    /// See [`max_in_flight`](Self#structfield.max_in_flight).
    pub fn max_in_flight(mut self, max: u32) -> Self {
        self.max_in_flight = max;
        self
    }

    /// See [`max_response_bytes`](Self#structfield.max_response_bytes).
    pub fn max_response_bytes(mut self, max: u64) -> Self {
        self.max_response_bytes = max;
        self
    }

    /// See [`max_request_body_bytes`](Self#structfield.max_request_body_bytes).
    pub fn max_request_body_bytes(mut self, max: u64) -> Self {
        self.max_request_body_bytes = max;
        self
    }

    /// See [`timeout_ms`](Self#structfield.timeout_ms).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        self
    }

    /// See [`max_redirects`](Self#structfield.max_redirects).
    pub fn max_redirects(mut self, max: u32) -> Self {
        self.max_redirects = max;
        self
    }

    /// Checks the policy: the first invalid value, named by its key
    /// (`allow[0].origin: …`), is the error.
    pub fn validate(&self) -> Result<(), String> {
        Policy::compile(self).map(drop)
    }
}

/// One origin a request may go to, with what it may do there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowRule {
    /// `scheme://host[:port]`, scheme `http` or `https`. The host may be
    /// `*.example.com` (any subdomain, not `example.com` itself); the port
    /// may be `*` (any port). Without a port, the scheme's default.
    pub origin: String,
    /// The methods allowed (`GET`, `POST`, …); empty: any method.
    #[serde(default)]
    pub methods: Vec<String>,
    /// The path prefixes allowed (`/v1/`); empty: any path. A prefix is
    /// compared with the URL's path as it is sent, byte for byte.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Headers the host adds to every request to this origin, replacing
    /// any the program set; values may hold `{{secret:NAME}}`. The program
    /// never sees them.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
}

impl AllowRule {
    /// A rule allowing any method and path on `origin`.
    pub fn new(origin: impl Into<String>) -> Self {
        Self {
            origin: origin.into(),
            methods: Vec::new(),
            paths: Vec::new(),
            headers: BTreeMap::new(),
        }
    }

    /// Allows only these methods.
    pub fn methods(mut self, methods: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.methods = methods.into_iter().map(Into::into).collect();
        self
    }

    /// Allows only paths starting with one of these prefixes.
    pub fn paths(mut self, prefixes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.paths = prefixes.into_iter().map(Into::into).collect();
        self
    }

    /// Adds a header to every request to this origin.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }
}

impl From<&str> for AllowRule {
    fn from(origin: &str) -> Self {
        Self::new(origin)
    }
}

impl From<String> for AllowRule {
    fn from(origin: String) -> Self {
        Self::new(origin)
    }
}

/// A secret a request may carry to the origins it names. Its value never
/// enters the sandbox, and is never printed (`Debug` shows its name only).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Secret {
    /// The name placeholders use: `{{secret:NAME}}`. Letters, digits, `_`,
    /// `-` and `.`.
    pub name: String,
    /// The value: at least 8 bytes (a shorter one could not be told apart
    /// in a response, where the host replaces it with the placeholder), no
    /// control characters.
    #[serde(skip_serializing, default)]
    value: String,
    /// The origins it may be sent to, as [`AllowRule::origin`] writes them.
    #[serde(default)]
    pub origins: Vec<String>,
}

impl Secret {
    /// The secret `name` with `value`, allowed to no origin yet.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
            origins: Vec::new(),
        }
    }

    /// Allows it to be sent to `origin`.
    pub fn origin(mut self, origin: impl Into<String>) -> Self {
        self.origins.push(origin.into());
        self
    }

    pub(crate) fn value(&self) -> &str {
        &self.value
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Secret")
            .field("name", &self.name)
            .field("value", &"<redacted>")
            .field("origins", &self.origins)
            .finish()
    }
}
