//! What clients that misbehave cannot do to the HTTP server: idle and slow
//! connections do not lock a real client out, mangled framing does not
//! bring it down, and a closed or unread stderr neither stalls nor kills
//! it.

use super::*;

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

/// A well-formed `initialize` request over HTTP/1.1, then a few of its
/// bytes changed, lines repeated or cut, or hostile framing added.
fn mangled_request(stream: &mut crate::fuzz_input::Stream, addr: &str) -> Vec<u8> {
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
    let (seconds, seed) = (crate::fuzz_input::seconds(), crate::fuzz_input::seed());
    eprintln!("http framing fuzz: seed {seed} (CODERUN_FUZZ_SEED={seed} reproduces it)");
    let workspace = Workspace::new();
    let mut config = workspace.stubborn_fixture_config();
    // Not stubborn: the fixture ends with the server this test drops.
    config["mcpServers"]["fixture"]["env"] = json!({"FIXTURE_EVENTS": workspace.events_file()});
    config["http"] = json!({"headerTimeoutSecs": 2, "bodyTimeoutSecs": 2});
    let path = workspace.write_config(&config);
    let mut server = HttpServer::start("0", &["--config", &path.display().to_string()], &[]).await;
    let mut stream = crate::fuzz_input::Stream(seed);
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
