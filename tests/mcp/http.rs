//! Streamable HTTP: the round trip, where it listens, and what guards it
//! (Origin, bearer token, body size, slow and idle clients), driven by
//! rmcp's client and by raw HTTP requests where the status code is what is
//! tested.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::Signal;
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::Child;

use super::shutdown::{assert_stops_within_a_second, signal, upstream_group_mid_call};
use super::{
    Workspace, check_round_trip, check_sdk_listing, fixture, round_trip_program, run_code, text,
};

mod clients;
mod serving;

/// `coderun mcp --listen <addr> <args>`, its address read from stderr.
pub(super) struct HttpServer {
    pub(super) child: Child,
    /// `host:port`.
    addr: String,
    pub(super) stderr: Arc<Mutex<String>>,
}

impl HttpServer {
    pub(super) async fn start(listen: &str, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        let mut child = spawn_listening(listen, args, env);
        let mut lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        let stderr = Arc::new(Mutex::new(String::new()));
        let (found, url) = tokio::sync::oneshot::channel();
        let sink = Arc::clone(&stderr);
        tokio::spawn(async move {
            let mut found = Some(found);
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.strip_prefix("coderun mcp: serving streamable HTTP at ")
                    && let Some(found) = found.take()
                {
                    let _ = found.send(url.to_owned());
                }
                let mut text = sink.lock().expect("stderr lock");
                text.push_str(&line);
                text.push('\n');
            }
        });
        let url = match tokio::time::timeout(Duration::from_secs(60), url).await {
            Ok(Ok(url)) => url,
            _ => panic!(
                "coderun mcp --listen {listen} did not announce its address:\n{}",
                stderr.lock().expect("stderr lock")
            ),
        };
        let addr = url
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("unexpected URL {url}"))
            .to_owned();
        HttpServer {
            child,
            addr,
            stderr,
        }
    }

    /// The address of the operations endpoints (`--ops-listen`), as the
    /// server announced it.
    pub(super) fn ops(&self) -> String {
        self.stderr
            .lock()
            .expect("stderr lock")
            .lines()
            .find_map(|line| {
                line.strip_prefix("coderun mcp: serving the operations endpoints at http://")
                    .map(|rest| rest.trim_end_matches('/').to_owned())
            })
            .expect("the operations address is announced")
    }

    pub(super) fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// POSTs `body` to /mcp with `headers` (besides Host, Content-Type,
    /// Accept and Content-Length) and returns the response's status and
    /// head. Reads no further than the head: an answer may be an SSE
    /// stream that stays open.
    async fn post(&self, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
        use tokio::io::AsyncReadExt as _;
        let stream = tokio::net::TcpStream::connect(&self.addr)
            .await
            .expect("connect");
        let (mut read, mut write) = stream.into_split();
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        let mut bytes = request.into_bytes();
        bytes.extend_from_slice(body);
        // Written alongside the read: a server may answer (413) before it
        // has read the whole body.
        let writing = tokio::spawn(async move {
            let _ = write.write_all(&bytes).await;
            write
        });
        let mut head = Vec::new();
        let mut buffer = [0u8; 4096];
        while !head.windows(4).any(|window| window == b"\r\n\r\n") {
            let read = tokio::time::timeout(Duration::from_secs(30), read.read(&mut buffer))
                .await
                .expect("an HTTP response in time")
                .expect("read the response");
            assert!(
                read > 0,
                "the connection closed before a response: {head:?}"
            );
            head.extend_from_slice(&buffer[..read]);
        }
        writing.abort();
        let head = String::from_utf8_lossy(&head).into_owned();
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP response: {head}"));
        (status, head)
    }
}

/// `coderun mcp --listen <listen> <args>` with `env`, its stderr piped
/// for the caller to read, hold or close.
fn spawn_listening(listen: &str, args: &[&str], env: &[(&str, &str)]) -> Child {
    super::coderun_command()
        .args(["mcp", "--listen", listen])
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn coderun mcp --listen")
}

/// An `initialize` request, as an HTTP body.
fn initialize_body() -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}
    }})
    .to_string()
    .into_bytes()
}

/// `coderun mcp --listen 0 <args> -- node fixture-server.mjs`.
async fn fixture_server(args: &[&str], env: &[(&str, &str)]) -> HttpServer {
    let fixture = fixture();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--", "node", &fixture]);
    HttpServer::start("0", &all, env).await
}

#[tokio::test(flavor = "multi_thread")]
async fn streamable_http_on_a_loopback_port_does_the_same() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.npm_config());
    let server = HttpServer::start("0", &["--config", &config.display().to_string()], &[]).await;
    assert!(server.addr.starts_with("127.0.0.1:"), "{}", server.addr);
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .expect("connect over HTTP");
    check_sdk_listing(&client.peer().list_all_tools().await.expect("tools/list"));
    let result = run_code(&client, &round_trip_program(&workspace.files())).await;
    check_round_trip(&workspace, &result);
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn listen_takes_a_host_name() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fixture = fixture();
    let server = HttpServer::start("localhost:0", &["--", "node", &fixture], &[]).await;
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .expect("connect over HTTP");
    let result = run_code(&client, "return await tools.echo({ text: 'by name' })").await;
    assert_eq!(text(&result), "by name");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_from_a_foreign_origin_is_refused_with_403() {
    let server = fixture_server(&[], &[]).await;
    let (status, head) = server
        .post(&[("Origin", "http://evil.example")], &initialize_body())
        .await;
    assert_eq!(status, 403, "{head}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_from_a_loopback_origin_is_served() {
    let server = fixture_server(&[], &[]).await;
    for origin in [
        "http://localhost:5173",
        "http://127.0.0.1:8000",
        "https://[::1]",
    ] {
        let (status, head) = server.post(&[("Origin", origin)], &initialize_body()).await;
        assert_eq!(status, 200, "{origin}: {head}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_without_an_origin_is_served() {
    let server = fixture_server(&[], &[]).await;
    let (status, head) = server.post(&[], &initialize_body()).await;
    assert_eq!(status, 200, "{head}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_origin_given_with_allow_origin_is_served() {
    let server = fixture_server(&["--allow-origin", "https://app.example.com"], &[]).await;
    let (status, head) = server
        .post(&[("Origin", "https://app.example.com")], &initialize_body())
        .await;
    assert_eq!(status, 200, "{head}");
    let (status, head) = server
        .post(
            &[("Origin", "https://app.example.com:8443")],
            &initialize_body(),
        )
        .await;
    assert_eq!(status, 403, "another port is another origin: {head}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_without_the_bearer_token_is_refused_with_401() {
    let env = [("CODERUN_TEST_TOKEN", "s3cret-token")];
    let server = fixture_server(&["--auth-token-env", "CODERUN_TEST_TOKEN"], &env).await;
    for headers in [
        &[][..],
        &[("Authorization", "Bearer wrong-token")],
        &[("Authorization", "Basic s3cret-token")],
    ] {
        let (status, head) = server.post(headers, &initialize_body()).await;
        assert_eq!(status, 401, "{headers:?}: {head}");
        let head = head.to_ascii_lowercase();
        assert!(head.contains("\r\nwww-authenticate: bearer"), "{head}");
        // Refused, the connection is not kept for the next request.
        assert!(head.contains("\r\nconnection: close"), "{head}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_with_the_bearer_token_is_served() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let env = [("CODERUN_TEST_TOKEN", "s3cret-token")];
    let server = fixture_server(&["--auth-token-env", "CODERUN_TEST_TOKEN"], &env).await;
    let config =
        StreamableHttpClientTransportConfig::with_uri(server.url()).auth_header("s3cret-token");
    let client =
        ().serve(StreamableHttpClientTransport::from_config(config))
            .await
            .expect("connect with the token");
    let result = run_code(
        &client,
        "return await tools.echo({ text: 'authenticated' })",
    )
    .await;
    assert_eq!(text(&result), "authenticated");
    client.cancel().await.expect("close");
}

#[test]
fn an_unset_token_variable_is_a_usage_error_naming_it() {
    let fixture = fixture();
    let output = super::coderun_std()
        .args([
            "mcp",
            "--listen",
            "0",
            "--auth-token-env",
            "CODERUN_TEST_UNSET",
        ])
        .args(["--", "node", &fixture])
        .env_remove("CODERUN_TEST_UNSET")
        .stdin(Stdio::null())
        .output()
        .expect("run coderun mcp");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "--auth-token-env names the environment variable CODERUN_TEST_UNSET, which is not set"
        ),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_over_the_cap_is_refused_with_413() {
    let server = fixture_server(&["--max-message-bytes", "1024"], &[]).await;
    let mut body = initialize_body();
    body.extend(std::iter::repeat_n(b' ', 2048));
    let (status, head) = server.post(&[], &body).await;
    assert_eq!(status, 413, "{head}");
    let (status, head) = server.post(&[], &initialize_body()).await;
    assert_eq!(status, 200, "a body within the cap is served: {head}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_mid_call_stops_the_http_server_and_the_upstream_group_within_a_second() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.stubborn_fixture_config());
    let mut server =
        HttpServer::start("0", &["--config", &config.display().to_string()], &[]).await;
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .expect("connect over HTTP");
    let call = tokio::spawn(async move {
        let mut arguments = JsonObject::new();
        let code = "await tools.fixture_wait({}); return 'not stopped';";
        arguments.insert("code".to_owned(), Value::from(code));
        let params = CallToolRequestParams::new("run_code").with_arguments(arguments);
        // The server stops mid-call: the call fails.
        let _ = client.peer().call_tool(params).await;
    });
    let group = upstream_group_mid_call(&workspace).await;
    let stop = signal(&server.child, Signal::SIGTERM);
    let stderr = Arc::clone(&server.stderr);
    assert_stops_within_a_second(&mut server.child, group, stop, || {
        stderr.lock().expect("stderr lock").clone()
    })
    .await;
    call.abort();
}

/// A plain HTTP GET of `path` at `addr`: the status and the body.
pub(super) async fn http_get(addr: &str, path: &str, headers: &str) -> (u16, String) {
    use tokio::io::AsyncReadExt as _;
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("read");
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}
