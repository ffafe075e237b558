//! The streamable HTTP transport of `coderun mcp --listen`: rmcp's
//! streamable HTTP service at `/mcp`, behind coderun's bearer-token check.
//!
//! What guards it, in the order a request meets it:
//!
//! 1. **Bearer token** (when `--auth-token-env` names one): every request
//!    must carry `Authorization: Bearer <token>`, compared in constant time;
//!    any other gets 401 with `WWW-Authenticate: Bearer`.
//! 2. **Host** (rmcp, against DNS rebinding): `localhost`, `127.0.0.1` and
//!    `::1`, plus the address (and the name) the server listens on when that
//!    is not a loopback one; any Host when it listens on all interfaces
//!    (`0.0.0.0`, `::`), where the names clients use cannot be known.
//!    Others get 403.
//! 3. **Origin** (rmcp, as the MCP transport spec requires): a request from
//!    a browser page must come from an allowed origin, the loopback ones
//!    ([`LOOPBACK_ORIGINS`]) and those given with `--allow-origin` or
//!    `http.allowedOrigins`, else 403. A request without `Origin` (not from
//!    a browser) passes.
//! 4. **Body size** (rmcp): a POST body over the message cap gets 413.
//!
//! What keeps slow and idle clients from holding it (a connection cap,
//! header and body deadlines) is in `front_door.rs`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use http::{StatusCode, header};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq as _;

use super::ServeError;
use super::config::LOOPBACK_ORIGINS;
use super::front_door::{BodyLimits, Limits, read_body_in_time};
use super::server::CodeModeServer;
use super::shutdown::Shutdown;

/// Where to listen, as `--listen` gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    /// An IP address and port.
    Address(SocketAddr),
    /// A host name to resolve, and a port.
    Name {
        /// The name, lowercase.
        host: String,
        /// The port.
        port: u16,
    },
}

impl std::fmt::Display for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Listen::Address(addr) => write!(f, "{addr}"),
            Listen::Name { host, port } => write!(f, "{host}:{port}"),
        }
    }
}

impl Listen {
    /// Parses `PORT` (on 127.0.0.1), `IP:PORT`, `[IPv6]:PORT` or
    /// `HOST:PORT`.
    pub fn parse(text: &str) -> Result<Listen, String> {
        let invalid = |why: &str| {
            format!(
                "--listen takes PORT, IP:PORT, [IPv6]:PORT or HOST:PORT, like 8080 or \
                 localhost:8080; {why} (got {text:?})"
            )
        };
        if text.bytes().all(|byte| byte.is_ascii_digit()) {
            let port = text
                .parse::<u16>()
                .map_err(|_| invalid("a port is a number from 0 to 65535"))?;
            return Ok(Listen::Address(SocketAddr::from((
                Ipv4Addr::LOCALHOST,
                port,
            ))));
        }
        if text.starts_with('[') {
            return text
                .parse()
                .map(Listen::Address)
                .map_err(|_| invalid("an IPv6 address goes in brackets, then :PORT"));
        }
        let Some((host, port)) = text.rsplit_once(':') else {
            return Err(invalid("the port is missing"));
        };
        if host.contains(':') {
            return Err(invalid("an IPv6 address goes in brackets, like [::1]:8080"));
        }
        let port = port
            .parse::<u16>()
            .map_err(|_| invalid("a port is a number from 0 to 65535"))?;
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Ok(Listen::Address(SocketAddr::new(ip, port)));
        }
        let valid_name = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
        if !valid_name {
            return Err(invalid("a host name has only letters, digits, `-` and `.`"));
        }
        Ok(Listen::Name {
            host: host.to_ascii_lowercase(),
            port,
        })
    }

    /// Binds it: a name is resolved, and the first of its addresses that
    /// can be bound is.
    pub async fn bind(&self) -> Result<tokio::net::TcpListener, ServeError> {
        let listen_error = |addr: &SocketAddr, source| ServeError::Listen {
            address: addr.to_string(),
            source,
        };
        let (host, port) = match self {
            Listen::Address(addr) => {
                return tokio::net::TcpListener::bind(addr)
                    .await
                    .map_err(|source| listen_error(addr, source));
            }
            Listen::Name { host, port } => (host, *port),
        };
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|source| ServeError::Resolve {
                host: host.clone(),
                source,
            })?
            .collect();
        let mut last_error = None;
        for addr in &addrs {
            match tokio::net::TcpListener::bind(addr).await {
                Ok(listener) => return Ok(listener),
                Err(source) => last_error = Some(listen_error(addr, source)),
            }
        }
        Err(last_error.unwrap_or_else(|| ServeError::NoAddress { host: host.clone() }))
    }

    fn name(&self) -> Option<&str> {
        match self {
            Listen::Name { host, .. } => Some(host),
            Listen::Address(_) => None,
        }
    }
}

/// The bearer token HTTP clients must send; never printed.
#[derive(Clone)]
pub struct AuthToken(String);

impl std::fmt::Debug for AuthToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AuthToken(..)")
    }
}

impl AuthToken {
    /// The token in the environment variable `name`, which `key` (the flag
    /// or configuration key) named. It must be set, not empty, and printable
    /// ASCII without spaces (what fits in an `Authorization` header).
    pub fn from_env(key: &str, name: &str) -> Result<AuthToken, String> {
        let value = std::env::var_os(name).ok_or_else(|| {
            format!("{key} names the environment variable {name}, which is not set")
        })?;
        let value = value.into_string().map_err(|_| {
            format!("{key} names the environment variable {name}, whose value is not UTF-8")
        })?;
        if value.is_empty() {
            return Err(format!(
                "{key} names the environment variable {name}, whose value is empty"
            ));
        }
        if !value.bytes().all(|byte| byte.is_ascii_graphic()) {
            return Err(format!(
                "{key} names the environment variable {name}, whose value has characters a \
                 bearer token cannot (only printable ASCII without spaces)"
            ));
        }
        Ok(AuthToken(value))
    }

    /// Whether `authorization`, an `Authorization` header, presents it.
    fn admits(&self, authorization: Option<&[u8]>) -> Result<(), &'static str> {
        let Some(value) = authorization else {
            return Err("the request has no Authorization header");
        };
        let not_bearer = "the Authorization header is not a Bearer token";
        let space = value
            .iter()
            .position(|&byte| byte == b' ')
            .ok_or(not_bearer)?;
        let (scheme, presented) = value.split_at(space);
        if !scheme.eq_ignore_ascii_case(b"bearer") {
            return Err(not_bearer);
        }
        let presented = presented.trim_ascii();
        if bool::from(presented.ct_eq(self.0.as_bytes())) {
            Ok(())
        } else {
            Err("the bearer token is not the right one")
        }
    }
}

/// How to serve streamable HTTP.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Where to listen.
    pub listen: Listen,
    /// The origins accepted besides [`LOOPBACK_ORIGINS`].
    pub allowed_origins: Vec<String>,
    /// The token clients must present, if any.
    pub auth_token: Option<AuthToken>,
    /// The cap on a request body, in bytes.
    pub max_body_bytes: usize,
    /// The most connections served at once.
    pub max_connections: usize,
    /// The time a client has to send a request's headers.
    pub header_timeout: Duration,
    /// The time a client has to send a request's body.
    pub body_timeout: Duration,
}

impl HttpOptions {
    /// Binds the listening socket, so that an address in use fails before
    /// any upstream starts; connections wait until [`serve_http`] serves.
    pub async fn bind(self) -> Result<HttpListener, ServeError> {
        let listener = self.listen.bind().await?;
        Ok(HttpListener {
            listener,
            options: self,
        })
    }
}

/// A bound socket, to serve streamable HTTP on.
#[derive(Debug)]
pub struct HttpListener {
    listener: tokio::net::TcpListener,
    options: HttpOptions,
}

/// Serves `server` over streamable HTTP at `http://<addr>/mcp` until
/// `shutdown` is requested, then stops accepting and gives open requests
/// until the shutdown deadline. Prints the address it listens on to stderr
/// (useful with port 0).
pub async fn serve_http(
    server: CodeModeServer,
    http: HttpListener,
    shutdown: &Shutdown,
) -> Result<(), ServeError> {
    let HttpListener { listener, options } = http;
    let local = listener.local_addr().map_err(|source| ServeError::Listen {
        address: options.listen.to_string(),
        source,
    })?;
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = shutdown.token();
    config.max_request_body_bytes = options.max_body_bytes;
    config.allowed_origins = LOOPBACK_ORIGINS
        .iter()
        .map(|origin| (*origin).to_owned())
        .chain(options.allowed_origins.iter().cloned())
        .collect();
    if local.ip().is_unspecified() {
        config.allowed_hosts.clear();
    } else if !local.ip().is_loopback() {
        config.allowed_hosts.push(match local.ip() {
            IpAddr::V4(ip) => ip.to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
        });
    }
    if let Some(name) = options.listen.name() {
        config.allowed_hosts.push(name.to_owned());
    }
    if !local.ip().is_loopback() && options.auth_token.is_none() {
        tracing::warn!(
            "serving on a non-loopback address, {local}, without authentication: anyone who can \
             reach it can run programs; set --auth-token-env NAME to require a bearer token"
        );
    }
    let service = StreamableHttpService::new(
        move || Ok(server.for_session()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let mut router = axum::Router::new().nest_service("/mcp", service).layer(
        axum::middleware::from_fn_with_state(
            BodyLimits {
                timeout: options.body_timeout,
                max_bytes: options.max_body_bytes,
            },
            read_body_in_time,
        ),
    );
    if let Some(token) = options.auth_token {
        router = router.layer(axum::middleware::from_fn_with_state(
            Arc::new(token),
            require_bearer,
        ));
    }
    // Outermost: every refusal is counted, whichever layer made it.
    router = router.layer(axum::middleware::from_fn(count_rejections));
    {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "coderun mcp: serving streamable HTTP at http://{local}/mcp"
        );
    }
    super::front_door::serve(
        listener,
        router,
        Limits {
            max_connections: options.max_connections,
            header_timeout: options.header_timeout,
        },
        shutdown,
    )
    .await;
    Ok(())
}

/// Counts the requests the front door refused (`coderun_rejected_requests`).
async fn count_rejections(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    super::ops::Metrics::global().rejected(response.status().as_u16());
    response
}

/// Answers 401 unless the request presents the bearer token.
async fn require_bearer(
    State(token): State<Arc<AuthToken>>,
    request: Request,
    next: Next,
) -> Response {
    let authorization = request
        .headers()
        .get(header::AUTHORIZATION)
        .map(|value| value.as_bytes());
    match token.admits(authorization) {
        Ok(()) => next.run(request).await,
        Err(reason) => {
            tracing::info!("refusing an HTTP request: {reason}");
            let challenge = if authorization.is_some() {
                "Bearer realm=\"coderun\", error=\"invalid_token\""
            } else {
                "Bearer realm=\"coderun\""
            };
            // The connection closes after the answer: a client without the
            // token cannot hold one of the front door's connections open by
            // sending requests that are refused.
            (
                StatusCode::UNAUTHORIZED,
                [
                    (header::WWW_AUTHENTICATE, challenge),
                    (header::CONNECTION, "close"),
                ],
                format!("Unauthorized: {reason}\n"),
            )
                .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_takes_a_port_an_address_or_a_name() {
        let cases = [
            (
                "8080",
                Listen::Address("127.0.0.1:8080".parse().expect("addr")),
            ),
            ("0", Listen::Address("127.0.0.1:0".parse().expect("addr"))),
            (
                "0.0.0.0:80",
                Listen::Address("0.0.0.0:80".parse().expect("addr")),
            ),
            ("[::1]:9", Listen::Address("[::1]:9".parse().expect("addr"))),
            (
                "LocalHost:0",
                Listen::Name {
                    host: "localhost".to_owned(),
                    port: 0,
                },
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(Listen::parse(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn listen_names_what_is_wrong() {
        let cases = [
            ("70000", "a port is a number"),
            ("::1:8080", "in brackets"),
            ("[::1]", "in brackets, then :PORT"),
            ("localhost", "the port is missing"),
            ("localhost:http", "a port is a number"),
            (":8080", "a host name has only"),
            ("a b:1", "a host name has only"),
        ];
        for (text, needle) in cases {
            let error = Listen::parse(text).expect_err(text);
            assert!(error.starts_with("--listen takes PORT"), "{error}");
            assert!(error.contains(needle), "{text}: {error}");
            assert!(error.contains(&format!("{text:?}")), "{error}");
        }
    }

    #[test]
    fn the_bearer_token_must_match_exactly() {
        let token = AuthToken("s3cret".to_owned());
        assert_eq!(token.admits(Some(b"Bearer s3cret")), Ok(()));
        assert_eq!(token.admits(Some(b"BEARER  s3cret ")), Ok(()));
        for wrong in [
            &b"Bearer s3cre"[..],
            b"Bearer s3cret2",
            b"Basic s3cret",
            b"s3cret",
        ] {
            assert!(token.admits(Some(wrong)).is_err(), "{wrong:?}");
        }
        assert!(token.admits(None).is_err());
    }
}
