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

/// 2,000 idle connections, a slowloris client and a client that trickles
/// its body do not lock a real client out: past `http.maxConnections`, a
/// new connection displaces one that never sent a request; hyper closes a
/// connection whose headers do not arrive in time; a body that does not
/// arrive in time gets 408. The process stays well below its file
/// descriptor limit throughout, the real client completes 100 runs, and
/// every idle connection is closed by the server.
#[tokio::test(flavor = "multi_thread")]
async fn idle_and_slow_clients_do_not_lock_out_a_real_one() {
    use tokio::io::AsyncReadExt as _;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let workspace = Workspace::new();
    let mut config = workspace.stubborn_fixture_config();
    config["mcpServers"]["fixture"]["env"] = json!({"FIXTURE_EVENTS": workspace.events_file()});
    config["http"] = json!({"maxConnections": 64, "headerTimeoutSecs": 2, "bodyTimeoutSecs": 2});
    let path = workspace.write_config(&config);
    let server = HttpServer::start("0", &["--config", &path.display().to_string()], &[]).await;
    let pid = server.child.id().expect("coderun mcp is running");
    let open_fds = || std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count);
    let baseline = open_fds();

    let mut idle = Vec::new();
    for _ in 0..2000 {
        if let Ok(stream) = tokio::net::TcpStream::connect(&server.addr).await {
            idle.push(stream);
        }
    }
    assert!(idle.len() > 1900, "only {} connections opened", idle.len());
    let addr = server.addr.clone();
    let slowloris = tokio::spawn(async move {
        let started = std::time::Instant::now();
        let mut stream = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        let _ = stream.write_all(b"POST /mcp HTTP/1.1\r\n").await;
        for i in 0..60 {
            tokio::time::sleep(Duration::from_millis(250)).await;
            if stream
                .write_all(format!("X-Slow-{i}: 1\r\n").as_bytes())
                .await
                .is_err()
            {
                return started.elapsed();
            }
        }
        started.elapsed()
    });
    let addr = server.addr.clone();
    let trickle = tokio::spawn(async move {
        let mut stream = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{"
        );
        stream.write_all(head.as_bytes()).await.expect("the head");
        let mut response = Vec::new();
        for _ in 0..40 {
            tokio::time::sleep(Duration::from_millis(250)).await;
            let _ = stream.write_all(b" ").await;
            let mut buffer = [0u8; 1024];
            if let Ok(Ok(read)) =
                tokio::time::timeout(Duration::from_millis(10), stream.read(&mut buffer)).await
            {
                response.extend_from_slice(&buffer[..read]);
                if read == 0 || response.windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
        }
        String::from_utf8_lossy(&response).into_owned()
    });

    // The real client, while the idle sockets and the slow ones are open.
    let client = ()
        .serve(StreamableHttpClientTransport::from_uri(server.url()))
        .await
        .expect("a real client connects past 2,000 idle connections");
    let tools = client.peer().list_all_tools().await.expect("tools/list");
    assert!(!tools.is_empty());
    for i in 0..100 {
        let result = run_code(&client, &format!("return {i} * 7")).await;
        assert!(text(&result).contains(&(i * 7).to_string()), "{result:?}");
    }
    assert!(
        open_fds() <= baseline + 64 + 70,
        "{} descriptors open with the cap at 64 (baseline {baseline})",
        open_fds()
    );

    let slow_for = slowloris.await.expect("the slowloris task");
    assert!(
        slow_for < Duration::from_secs(10),
        "a slowloris client kept its connection for {slow_for:?}"
    );
    let answer = trickle.await.expect("the trickle task");
    assert!(
        answer.starts_with("HTTP/1.1 408"),
        "a trickled body got {answer:?}"
    );
    // Every idle connection is closed by the server (displaced by a newer
    // one, or at its header timeout), none left waiting on the client.
    let closed = idle.into_iter().map(|mut stream| {
        tokio::spawn(async move {
            let mut buffer = [0u8; 64];
            matches!(
                tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer)).await,
                Ok(Ok(0) | Err(_))
            )
        })
    });
    let mut open = 0;
    for closed in closed.collect::<Vec<_>>() {
        if !closed.await.expect("the read task") {
            open += 1;
        }
    }
    assert_eq!(open, 0, "idle connections the server never closed");
    client.cancel().await.expect("close");
}

/// Over HTTP one server serves many sessions: a paused run's state is
/// sealed for the session that started it, and another session's
/// `resume_code` with it is refused (Invalid params) and writes nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_paused_run_resumes_only_in_its_own_session() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let workspace = Workspace::new();
    let mut config = workspace.npm_config();
    config["mcpServers"]["filesystem"]["requireApproval"] = json!("destructive");
    let path = workspace.write_config(&config);
    let server = HttpServer::start("0", &["--config", &path.display().to_string()], &[]).await;
    let connect = || async {
        ().serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .expect("connect over HTTP")
    };
    let (owner, other) = (connect().await, connect().await);
    let call = |client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
                name: &str,
                arguments: Value| {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        let peer = client.peer().clone();
        let name = name.to_owned();
        async move {
            peer.call_tool(CallToolRequestParams::new(name).with_arguments(arguments))
                .await
                .expect("tools/call")
        }
    };
    let paused = call(
        &owner,
        "run_code",
        json!({"code": super::approval::program(&workspace.files())}),
    )
    .await;
    let id = paused.structured_content.as_ref().expect("structured")["paused"]["id"]
        .as_str()
        .expect("the paused run's id")
        .to_owned();

    let Value::Object(arguments) = json!({"id": id, "approve": true}) else {
        unreachable!()
    };
    let stolen = other
        .peer()
        .call_tool(CallToolRequestParams::new("resume_code").with_arguments(arguments))
        .await;
    assert!(
        matches!(&stolen, Err(rmcp::ServiceError::McpError(error)) if error.code.0 == -32602),
        "another session's resume is Invalid params: {stolen:?}"
    );
    assert!(
        !workspace.files().join("approved.txt").exists(),
        "nothing written"
    );

    let done = call(&owner, "resume_code", json!({"id": id, "approve": true})).await;
    assert_eq!(done.is_error, Some(false), "{}", text(&done));
    assert_eq!(
        done.structured_content.as_ref().expect("structured")["value"],
        "written"
    );
    owner.cancel().await.expect("close");
    other.cancel().await.expect("close");
}

/// A well-formed `initialize` request over HTTP/1.1, then a few of its
/// bytes changed, lines repeated or cut, or hostile framing added.
fn mangled_request(stream: &mut super::fuzz_input::Stream, addr: &str) -> Vec<u8> {
    let body = initialize_body();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);
    const EXTRAS: &[&[u8]] = &[
        b"Transfer-Encoding: chunked\r\n",
        b"Content-Length: 99999999999999999999\r\n",
        b"Content-Length: -1\r\n",
        b"Content-Length: 5\r\nContent-Length: 7\r\n",
        b"Mcp-Session-Id: \x00\xff\r\n",
        b"Authorization: Bearer \r\n",
        b"Origin: null\r\n",
        b"Expect: 100-continue\r\n",
        b"Connection: upgrade\r\nUpgrade: websocket\r\n",
        b"\r\n\r\n\r\n",
        b"GET /mcp HTTP/1.1\r\n\r\n",
        b"0\r\n\r\n",
        b"ffffffffffffffff\r\n",
        b"\n",
        b"\r",
        b"\x00",
    ];
    for _ in 0..=stream.below(4) {
        let at = stream.below(request.len() + 1);
        match stream.below(6) {
            0 => {
                let extra = EXTRAS[stream.below(EXTRAS.len())];
                request.splice(at..at, extra.iter().copied());
            }
            1 => request.truncate(at),
            2 => {
                if at < request.len() {
                    request[at] = stream.next() as u8;
                }
            }
            3 => {
                // A long header line or a long token.
                let long = vec![b'a' + stream.below(26) as u8; 1 + stream.below(200_000)];
                request.splice(at..at, long);
            }
            4 => {
                let end = (at + stream.below(64)).min(request.len());
                request.drain(at..end);
            }
            _ => {
                // Pipelined: the same request again behind it.
                let copy = request.clone();
                request.extend_from_slice(&copy);
            }
        }
    }
    request
}

/// Mangled HTTP framing (chunked lies, conflicting lengths, NULs, bare CR
/// and LF, megabyte-long header lines, pipelining, cut requests) never
/// brings `coderun mcp --listen` down: each gets an answer or a closed
/// connection, and a real client is served afterwards. `make fuzz` runs it
/// for `CODERUN_FUZZ_SECONDS`; `make test` runs 300 requests.
#[tokio::test(flavor = "multi_thread")]
async fn mangled_http_framing_never_brings_the_server_down() {
    use tokio::io::AsyncReadExt as _;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (seconds, seed) = (super::fuzz_input::seconds(), super::fuzz_input::seed());
    eprintln!("http framing fuzz: seed {seed} (CODERUN_FUZZ_SEED={seed} reproduces it)");
    let workspace = Workspace::new();
    let mut config = workspace.stubborn_fixture_config();
    // Not stubborn: the fixture ends with the server this test drops.
    config["mcpServers"]["fixture"]["env"] = json!({"FIXTURE_EVENTS": workspace.events_file()});
    config["http"] = json!({"headerTimeoutSecs": 2, "bodyTimeoutSecs": 2});
    let path = workspace.write_config(&config);
    let mut server = HttpServer::start("0", &["--config", &path.display().to_string()], &[]).await;
    let mut stream = super::fuzz_input::Stream(seed);
    let deadline = seconds.map(|s| std::time::Instant::now() + Duration::from_secs(s));
    let (mut sent, mut answered) = (0u64, 0u64);
    while deadline.map_or(sent < 300, |deadline| std::time::Instant::now() < deadline) {
        let request = mangled_request(&mut stream, &server.addr);
        let mut connection = tokio::net::TcpStream::connect(&server.addr)
            .await
            .unwrap_or_else(|error| panic!("request {sent} (seed {seed}): connect: {error}"));
        let (mut read, mut write) = connection.split();
        let writing = async {
            let _ = write.write_all(&request).await;
            let _ = write.shutdown().await;
        };
        let reading = async {
            let mut answer = Vec::new();
            let mut buffer = [0u8; 8192];
            // Until the server closes, or enough to know it answered.
            while answer.len() < 1 << 16 {
                match read.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => answer.extend_from_slice(&buffer[..n]),
                }
            }
            answer
        };
        let exchange = async { tokio::join!(writing, reading).1 };
        let answer = tokio::time::timeout(Duration::from_secs(10), exchange)
            .await
            .unwrap_or_else(|_| {
                panic!("request {sent} (seed {seed}) got neither an answer nor a close in 10 s")
            });
        assert!(
            answer.is_empty() || answer.starts_with(b"HTTP/1."),
            "request {sent} (seed {seed}) got {:?}",
            String::from_utf8_lossy(&answer[..answer.len().min(200)])
        );
        answered += u64::from(!answer.is_empty());
        assert!(
            server.child.try_wait().expect("wait").is_none(),
            "request {sent} (seed {seed}) ended the server:\n{}",
            server.stderr.lock().expect("stderr lock")
        );
        sent += 1;
    }
    let client = ()
        .serve(StreamableHttpClientTransport::from_uri(server.url()))
        .await
        .expect("a real client connects after the mangled requests");
    let result = run_code(&client, "return 6 * 7").await;
    assert!(text(&result).contains("42"), "{result:?}");
    client.cancel().await.expect("close");
    eprintln!("http framing fuzz: {sent} requests, {answered} answered");
    // Most mangled requests still reach hyper's parser and get a status.
    assert!(
        answered * 4 >= sent,
        "{answered} of {sent} requests answered"
    );
}

/// Over HTTP as over stdio, coderun's own logging never stops the server:
/// with its stderr closed by the parent, or held open and never read (a
/// pipe that fills after 64 KiB), it serves 50 runs with trace logging on,
/// and SIGTERM mid-call still ends it with status 0 within a second, its
/// upstream group gone.
#[tokio::test(flavor = "multi_thread")]
async fn with_stderr_closed_or_unread_the_http_server_serves_and_stops_cleanly() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    for closed in [true, false] {
        let workspace = Workspace::new();
        let config = workspace.write_config(&workspace.stubborn_fixture_config());
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let listen = format!("127.0.0.1:{port}");
        let config = config.display().to_string();
        let mut child = spawn_listening(&listen, &["--config", &config], &[("RUST_LOG", "trace")]);
        // Closed at once, or held (so the pipe fills) and never read.
        let held = child.stderr.take().filter(|_| !closed);
        let mut connected = None;
        for _ in 0..600 {
            if tokio::net::TcpStream::connect(&listen).await.is_ok() {
                connected = Some(());
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        connected.expect("coderun mcp listens");
        let url = format!("http://{listen}/mcp");
        let client =
            ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                .await
                .expect("connect over HTTP");
        for i in 0..50 {
            let result = run_code(&client, &format!("return {i} + 1")).await;
            assert!(text(&result).contains(&(i + 1).to_string()), "{result:?}");
        }
        let call = tokio::spawn(async move {
            let mut arguments = JsonObject::new();
            let code = "await tools.fixture_wait({}); return 'not stopped';";
            arguments.insert("code".to_owned(), Value::from(code));
            let params = CallToolRequestParams::new("run_code").with_arguments(arguments);
            let _ = client.peer().call_tool(params).await;
        });
        let group = upstream_group_mid_call(&workspace).await;
        let stop = signal(&child, Signal::SIGTERM);
        let why = if closed {
            "its stderr is closed"
        } else {
            "its stderr is unread"
        };
        assert_stops_within_a_second(&mut child, group, stop, || why.to_owned()).await;
        call.abort();
        drop(held);
    }
}

/// Log lines dropped because stderr was not read are counted: once a
/// reader catches up, a warning says how many it missed.
#[tokio::test(flavor = "multi_thread")]
async fn dropped_log_lines_are_counted_for_a_reader_that_catches_up() {
    // Each upstream's stderr is logged at up to 64 KiB a second; eight of
    // them fill the pipe's 64 KiB and the writer's 8,192 waiting lines in
    // about a second.
    const NOISY: &str = r#"
const line = `noise ${'n'.repeat(40)}\n`;
const flood = () => { while (process.stderr.write(line)); process.stderr.once('drain', flood); };
flood();
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
require('readline').createInterface({ input: process.stdin }).on('line', (text) => {
  const m = JSON.parse(text);
  if (m.id === undefined) return;
  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion,
    capabilities: { tools: {} }, serverInfo: { name: 'noisy', version: '1' } } });
  else if (m.method === 'tools/list') send({ id: m.id, result: { tools: [] } });
  else send({ id: m.id, error: { code: -32601, message: 'no' } });
});
"#;
    let workspace = Workspace::new();
    let servers: serde_json::Map<String, Value> = (0..8)
        .map(|i| {
            (
                format!("noisy{i}"),
                json!({"command": "node", "args": ["-e", NOISY]}),
            )
        })
        .collect();
    let config = workspace.write_config(&json!({ "mcpServers": servers }));
    let config = config.display().to_string();
    let mut child = spawn_listening("127.0.0.1:0", &["--config", &config], &[]);
    let stderr = child.stderr.take().expect("piped stderr");
    // Nobody reads for a while.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let mut lines = BufReader::new(stderr).lines();
    let counted = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("log lines were dropped") {
                return line;
            }
        }
        panic!("stderr ended without a count of dropped lines");
    })
    .await
    .expect("a count of the dropped lines within 30 s");
    assert!(counted.contains("in all)"), "{counted}");
    let _ = child.kill().await;
}

/// MCP 2026-07-28 over HTTP: no session, `server/discover` instead of the
/// handshake, every request self-contained. A program runs; one whose
/// upstream asks the user a question pauses and goes back as an
/// input-required result, and the client's retry (which the rmcp client
/// drives with its elicitation handler) resumes it with the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_2026_client_runs_and_answers_an_upstreams_question() {
    use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ProtocolVersion};
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _, RequestContext};

    #[derive(Clone)]
    struct Answers;
    impl rmcp::ClientHandler for Answers {
        async fn create_elicitation(
            &self,
            _request: ElicitRequestParams,
            _context: RequestContext<rmcp::RoleClient>,
        ) -> Result<ElicitResult, rmcp::ErrorData> {
            Ok(ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({"username": "http", "email": "h@example.com"})))
        }
        fn get_info(&self) -> rmcp::model::ClientConfig {
            let mut info = rmcp::model::ClientConfig::default();
            info.capabilities.elicitation = Some(rmcp::model::ElicitationCapability::default());
            info
        }
    }

    let _ = rustls::crypto::ring::default_provider().install_default();
    let node = super::conformance::node().display().to_string();
    let fixture = super::conformance::conformance_fixture();
    let server = HttpServer::start("0", &["--", &node, &fixture], &[]).await;
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = Answers
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(server.url()),
            lifecycle,
        )
        .await
        .expect("discovers over HTTP");
    let call = |code: &str| {
        let Value::Object(arguments) = json!({ "code": code }) else {
            unreachable!()
        };
        CallToolRequestParams::new("run_code").with_arguments(arguments)
    };
    let sum = client
        .call_tool(call("return 1 + 1"))
        .await
        .expect("tools/call");
    assert_eq!(
        sum.structured_content.as_ref().expect("structured")["value"],
        2
    );
    let answered = client
        .call_tool(call(
            "return await tools.test_elicitation({ message: 'Who?' })",
        ))
        .await
        .expect("tools/call, through its input-required round");
    let text = text(&answered);
    assert!(text.contains("h@example.com"), "{text}");
    client.cancel().await.ok();
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

/// The operations endpoints on their own port: alive, ready once serving,
/// and metrics in Prometheus text whose counters match what the test did
/// (two runs, one failed; the upstream calls they made; a refused Origin).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operations_port_reports_health_readiness_and_metrics() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fixture = fixture();
    let server = HttpServer::start(
        "0",
        &["--ops-listen", "127.0.0.1:0", "--", "node", &fixture],
        &[],
    )
    .await;
    let ops = server.ops();
    assert_eq!(http_get(&ops, "/healthz", "").await.0, 200);
    assert_eq!(
        http_get(&ops, "/readyz", "").await,
        (200, "ready\n".to_owned())
    );
    assert_eq!(
        http_get(&ops, "/mcp", "").await.0,
        404,
        "no /mcp on the operations port"
    );

    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .expect("connect over HTTP");
    for code in [
        "return await tools.echo({ text: 'a' })",
        "throw new Error('no')",
    ] {
        let Value::Object(arguments) = json!({ "code": code }) else {
            unreachable!()
        };
        client
            .peer()
            .call_tool(CallToolRequestParams::new("run_code").with_arguments(arguments))
            .await
            .expect("tools/call");
    }
    let refused = server
        .post(
            &[("Origin", "https://elsewhere.example")],
            &initialize_body(),
        )
        .await;
    assert_eq!(refused.0, 403, "{}", refused.1);

    let (status, metrics) = http_get(&ops, "/metrics", "").await;
    assert_eq!(status, 200);
    // Prometheus text: comments, or `name{labels} value`.
    for line in metrics
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
    {
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line}"));
        assert!(value.parse::<f64>().is_ok(), "not a number: {line}");
        let name = series.split('{').next().unwrap_or_default();
        assert!(
            name.starts_with("coderun_")
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{line}"
        );
    }
    for expected in [
        "coderun_runs_total{outcome=\"ok\",kind=\"\"} 1",
        "coderun_runs_total{outcome=\"failed\",kind=\"exception\"} 1",
        "coderun_upstream_calls_total{server=\"node\",tool=\"echo\",outcome=\"ok\"} 1",
        "coderun_runs_in_flight 0",
        "coderun_rejected_requests_total{reason=\"origin\"} 1",
        "coderun_run_duration_seconds_count 2",
    ] {
        assert!(metrics.contains(expected), "no {expected:?} in:\n{metrics}");
    }
    let budget = metrics
        .lines()
        .find_map(|line| line.strip_prefix("coderun_memory_budget_bytes "))
        .and_then(|value| value.parse::<f64>().ok())
        .expect("the memory budget");
    assert!(budget > 0.0, "{metrics}");
    client.cancel().await.ok();
}

/// A replica that drains (`--drain-seconds`): on SIGTERM it stops being
/// ready, refuses a new call with the retryable -32001, lets the program in
/// flight finish and return its value, and then exits 0 without waiting
/// out the drain. With a short drain, a program still running when it ends
/// is aborted with an error saying to retry it, and the process exits 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_the_calls_in_flight_then_exits() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fixture = fixture();
    for (drain, sleep_ms, finishes) in [("20", 1500, true), ("1", 60_000, false)] {
        let mut server = HttpServer::start(
            "0",
            &[
                "--ops-listen",
                "127.0.0.1:0",
                "--drain-seconds",
                drain,
                "--",
                "node",
                &fixture,
            ],
            &[],
        )
        .await;
        let ops = server.ops();
        let connect = || async {
            ().serve(StreamableHttpClientTransport::from_uri(server.url()))
                .await
                .expect("connect over HTTP")
        };
        let (busy, late) = (connect().await, connect().await);
        let call = |code: String| {
            let Value::Object(arguments) = json!({ "code": code }) else {
                unreachable!()
            };
            CallToolRequestParams::new("run_code").with_arguments(arguments)
        };
        let peer = busy.peer().clone();
        let program = format!(
            "await new Promise((resolve) => setTimeout(resolve, {sleep_ms})); return 'finished';"
        );
        let running = tokio::spawn(async move { peer.call_tool(call(program)).await });
        tokio::time::sleep(Duration::from_millis(300)).await;
        let started = std::time::Instant::now();
        super::shutdown::signal(&server.child, Signal::SIGTERM)();

        let mut ready = 200;
        for _ in 0..100 {
            ready = http_get(&ops, "/readyz", "").await.0;
            if ready == 503 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(ready, 503, "not ready once draining");
        let refused = tokio::time::timeout(
            Duration::from_secs(10),
            late.peer().call_tool(call("return 1".to_owned())),
        )
        .await
        .expect("the refusal comes at once");
        assert!(
            matches!(&refused, Err(rmcp::ServiceError::McpError(error)) if error.code.0 == -32001),
            "a new call is refused as retryable: {refused:?}"
        );

        let stderr = Arc::clone(&server.stderr);
        let result = tokio::time::timeout(Duration::from_secs(10), running)
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "the call in flight was not answered:\n{}",
                    stderr.lock().expect("stderr lock")
                )
            })
            .expect("the call task")
            .expect("an answer");
        if finishes {
            assert_eq!(
                result.structured_content.as_ref().expect("structured")["value"],
                "finished",
                "{}",
                text(&result)
            );
        } else {
            assert_eq!(result.is_error, Some(true));
            assert!(
                text(&result).contains("shutting down") && text(&result).contains("retry"),
                "{}",
                text(&result)
            );
        }
        let status = tokio::time::timeout(Duration::from_secs(10), server.child.wait())
            .await
            .expect("the process exits")
            .expect("wait");
        assert!(status.success(), "{status:?}");
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "it did not wait out the drain: {:?}",
            started.elapsed()
        );
    }
}
