//! A real HTTP server on loopback for the egress tests: one per test, on a
//! port of its own, so that what it records (every request it was sent,
//! and the most it served at once) belongs to that test alone.
//!
//! Endpoints (queries are `name=value&…`, values percent-encoded):
//! - `/json`: [`json_body`], as `application/json`.
//! - `/items/{n}`: `{"n": n}`.
//! - `/large?bytes=N`: `N` bytes of `x`, with a content length.
//! - `/slow?ms=N`: waits `N` ms, then `done`.
//! - `/redirect?to=URL&status=302`: a redirect to `URL` (status 302 unless
//!   given).
//! - `/echo` (any method): `{method, headers: {name: value}, body}`, the
//!   names lowercase, and the request's `authorization` copied into the
//!   response header `x-echo-authorization`.
//! - `/gzip`: [`gzip_value`] as gzipped JSON (`content-encoding: gzip`).
//! - `/chunked`: [`chunked_text`] in [`CHUNKED_LINES`] chunks, without a
//!   content length.
//! - `/endless`: chunks of `e` that never end.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use futures::StreamExt as _;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// How many lines `/chunked` sends, each in a chunk of its own.
pub const CHUNKED_LINES: usize = 100;

/// The most of a request body `/echo` reads.
const ECHO_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// What `/json` serves.
pub fn json_body() -> Value {
    json!({ "hello": "world", "list": [1, 2, 3], "nested": { "ok": true } })
}

/// What `/gzip` serves, before compression: repetitive, so that it shrinks.
pub fn gzip_value() -> Value {
    json!({
        "compressed": true,
        "items": (0..500).collect::<Vec<u32>>(),
        "text": "gzip ".repeat(200),
    })
}

/// What `/chunked` serves, all chunks together.
pub fn chunked_text() -> String {
    (0..CHUNKED_LINES).map(chunk_line).collect()
}

fn chunk_line(i: usize) -> String {
    format!("line {i} of the chunked stream\n")
}

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The method, as sent.
    pub method: String,
    /// The path and query, as sent.
    pub path: String,
    /// Every header, names lowercase, in the order received.
    pub headers: Vec<(String, String)>,
}

impl Recorded {
    /// The first value of the header `name`, if it was sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the server has seen, shared with its handler.
#[derive(Default)]
struct Seen {
    requests: Mutex<Vec<Recorded>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

/// Counts a request as in flight while the handler runs.
struct InFlight<'a>(&'a Seen);

impl<'a> InFlight<'a> {
    fn enter(seen: &'a Seen) -> Self {
        let now = seen.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        seen.max_in_flight.fetch_max(now, Ordering::SeqCst);
        Self(seen)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A running server; dropping it stops accepting connections.
pub struct Server {
    /// The port it listens on, on 127.0.0.1.
    pub port: u16,
    /// `http://127.0.0.1:PORT`.
    pub origin: String,
    seen: Arc<Seen>,
    task: JoinHandle<()>,
}

impl Server {
    /// Starts a server on a free port of 127.0.0.1, on the current tokio
    /// runtime.
    pub async fn start() -> Self {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("a free port on loopback");
        let port = listener.local_addr().expect("a bound address").port();
        let seen = Arc::new(Seen::default());
        let app = Router::new().fallback(respond).with_state(seen.clone());
        let task = tokio::spawn(async move {
            // It never returns: accept errors are retried inside.
            let _ = axum::serve(listener, app).await;
        });
        Self {
            port,
            origin: format!("http://127.0.0.1:{port}"),
            seen,
            task,
        }
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.seen
            .requests
            .lock()
            .expect("no handler panicked holding the log")
            .clone()
    }

    /// The paths (and queries) of every request received so far.
    pub fn paths(&self) -> Vec<String> {
        self.requests().into_iter().map(|r| r.path).collect()
    }

    /// The most requests the handler was serving at one time.
    pub fn max_concurrent(&self) -> usize {
        self.seen.max_in_flight.load(Ordering::SeqCst)
    }

    /// Stops listening, and returns once a new connection is refused.
    /// Connections already open may linger until their clients close them;
    /// what the server has recorded stays readable.
    pub async fn stop(&self) {
        self.task.abort();
        for _ in 0..500 {
            if TcpStream::connect(("127.0.0.1", self.port)).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the server on port {} still accepts connections", self.port);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn respond(State(seen): State<Arc<Seen>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    let query = parts.uri.query().unwrap_or("").to_owned();
    seen.requests
        .lock()
        .expect("no handler panicked holding the log")
        .push(Recorded {
            method: parts.method.to_string(),
            path: parts
                .uri
                .path_and_query()
                .map_or_else(|| path.clone(), ToString::to_string),
            headers: parts
                .headers
                .iter()
                .map(|(name, value)| {
                    let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                    (name.as_str().to_owned(), value)
                })
                .collect(),
        });
    let _in_flight = InFlight::enter(&seen);
    let number = |name: &str| param(&query, name).and_then(|v| v.parse::<u64>().ok());

    match path.as_str() {
        "/json" => json_reply(&json_body()),
        "/large" => {
            let bytes = usize::try_from(number("bytes").unwrap_or(0)).expect("a size that fits");
            reply(
                StatusCode::OK,
                &[("content-type", "application/octet-stream")],
                vec![b'x'; bytes],
            )
        }
        "/slow" => {
            tokio::time::sleep(Duration::from_millis(number("ms").unwrap_or(0))).await;
            reply(StatusCode::OK, &[("content-type", "text/plain")], "done")
        }
        "/redirect" => {
            let to = param(&query, "to").unwrap_or_default();
            let status = number("status")
                .and_then(|s| u16::try_from(s).ok())
                .and_then(|s| StatusCode::from_u16(s).ok())
                .unwrap_or(StatusCode::FOUND);
            reply(status, &[("location", to.as_str())], Body::empty())
        }
        "/echo" => echo(parts.method.as_str(), &parts.headers, body).await,
        "/gzip" => {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            encoder
                .write_all(gzip_value().to_string().as_bytes())
                .expect("gzip into memory");
            let gzipped = encoder.finish().expect("gzip into memory");
            reply(
                StatusCode::OK,
                &[
                    ("content-type", "application/json"),
                    ("content-encoding", "gzip"),
                ],
                gzipped,
            )
        }
        "/chunked" => {
            // A yield between chunks, so that each leaves as a chunk of its own.
            let chunks = futures::stream::iter(0..CHUNKED_LINES).then(|i| async move {
                tokio::task::yield_now().await;
                Ok::<_, Infallible>(chunk_line(i))
            });
            reply(
                StatusCode::OK,
                &[("content-type", "text/plain")],
                Body::from_stream(chunks),
            )
        }
        "/endless" => {
            static CHUNK: [u8; 64 * 1024] = [b'e'; 64 * 1024];
            let chunks =
                futures::stream::repeat_with(|| Ok::<_, Infallible>(Bytes::from_static(&CHUNK)));
            reply(
                StatusCode::OK,
                &[("content-type", "application/octet-stream")],
                Body::from_stream(chunks),
            )
        }
        items if items.starts_with("/items/") => match items["/items/".len()..].parse::<i64>() {
            Ok(n) => json_reply(&json!({ "n": n })),
            Err(_) => reply(StatusCode::BAD_REQUEST, &[], "not a number"),
        },
        _ => reply(StatusCode::NOT_FOUND, &[], "no such endpoint"),
    }
}

async fn echo(method: &str, headers: &HeaderMap, body: Body) -> Response {
    let body = axum::body::to_bytes(body, ECHO_BODY_LIMIT)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_else(|error| format!("unreadable body: {error}"));
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in headers {
        let joined = names.entry(name.as_str().to_owned()).or_default();
        if !joined.is_empty() {
            joined.push_str(", ");
        }
        joined.push_str(&String::from_utf8_lossy(value.as_bytes()));
    }
    let text = json!({ "method": method, "headers": names, "body": body }).to_string();
    let mut builder = axum::http::Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(authorization) = headers.get(header::AUTHORIZATION) {
        builder = builder.header("x-echo-authorization", authorization.clone());
    }
    builder
        .body(Body::from(text))
        .expect("a well-formed response")
}

fn json_reply(value: &Value) -> Response {
    reply(
        StatusCode::OK,
        &[("content-type", "application/json")],
        value.to_string(),
    )
}

fn reply(status: StatusCode, headers: &[(&str, &str)], body: impl Into<Body>) -> Response {
    let mut builder = axum::http::Response::builder().status(status);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder.body(body.into()).expect("a well-formed response")
}

/// The percent-decoded value of `name` in `query`.
fn param(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| percent_decode(value))
    })
}

fn percent_decode(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        let escaped = tail
            .get(..2)
            .filter(|_| byte == b'%')
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        if let Some(decoded) = escaped {
            out.push(decoded);
            rest = &tail[2..];
        } else {
            out.push(if byte == b'+' { b' ' } else { byte });
            rest = tail;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
