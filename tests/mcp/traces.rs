//! Traces over OTLP: with `OTEL_EXPORTER_OTLP_ENDPOINT` set, `coderun mcp`
//! exports one `run_code` span per program, child of the client's
//! `traceparent`, with one `upstream_call` child per upstream call, whose
//! context the upstream receives in `_meta`. The collector is an
//! in-process OTLP/HTTP receiver that keeps the JSON bodies it is sent.

use std::process::Stdio;
use std::sync::Arc;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

use super::*;

/// An OTLP/HTTP receiver on loopback: its address and what it received.
pub(super) async fn collector() -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    let received = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&received);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let sink = Arc::clone(&sink);
            tokio::spawn(async move {
                let mut buffer = Vec::new();
                loop {
                    // One request: its head, then Content-Length bytes.
                    let head_end = loop {
                        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                            break at + 4;
                        }
                        let mut chunk = [0_u8; 8192];
                        match stream.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                        }
                    };
                    let head = String::from_utf8_lossy(&buffer[..head_end]).to_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|line| line.strip_prefix("content-length:"))
                        .and_then(|value| value.trim().parse().ok())
                        .unwrap_or(0);
                    while buffer.len() < head_end + length {
                        let mut chunk = [0_u8; 8192];
                        match stream.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                        }
                    }
                    let body: Vec<u8> = buffer.drain(..head_end + length).skip(head_end).collect();
                    if let Ok(json) = serde_json::from_slice::<Value>(&body) {
                        sink.lock().expect("not poisoned").push(json);
                    }
                    let answer = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
                    if stream.write_all(answer).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (addr, received)
}

/// Every span the collector received: (name, traceId, spanId, parentSpanId).
pub(super) fn spans(received: &[Value]) -> Vec<(String, String, String, String)> {
    let field = |span: &Value, key: &str| span[key].as_str().unwrap_or_default().to_owned();
    received
        .iter()
        .flat_map(|body| {
            body["resourceSpans"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .flat_map(|resource| {
            resource["scopeSpans"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .flat_map(|scope| scope["spans"].as_array().cloned().unwrap_or_default())
        .map(|span| {
            (
                field(&span, "name"),
                field(&span, "traceId").to_lowercase(),
                field(&span, "spanId").to_lowercase(),
                field(&span, "parentSpanId").to_lowercase(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_and_its_upstream_calls_are_exported_as_one_trace() {
    let (addr, received) = collector().await;
    let workspace = Workspace::new();
    let config = workspace.write_config(&json!({"mcpServers": {
        "fixture": {"command": "node", "args": [fixture()],
                    "env": {"FIXTURE_EVENTS": workspace.events_file()}}
    }}));
    let mut command = coderun_command();
    command
        .arg("mcp")
        .arg("--config")
        .arg(&config)
        .arg("--log-json")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{addr}"))
        .kill_on_drop(true);
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn coderun mcp");
    let stderr = collect_stderr(stderr.expect("piped stderr"));
    let client = ().serve(transport).await.expect("connects");

    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let parent = "00f067aa0ba902b7";
    let mut request = CallToolRequestParams::new("run_code").with_arguments(
        json!({"code": "await tools.fixture_echo({ text: 'a' }); return await tools.fixture_echo({ text: 'b' });"})
            .as_object()
            .expect("an object")
            .clone(),
    );
    let mut meta = rmcp::model::RequestMetaObject::default();
    meta.set_traceparent(format!("00-{trace}-{parent}-01"));
    request.meta = Some(meta);
    let result = client.peer().call_tool(request).await.expect("tools/call");
    assert_eq!(text(&result), "b");
    // Closing stdin stops the process, which exports what it buffered.
    client.cancel().await.ok();

    let mut found = Vec::new();
    for _ in 0..100 {
        found = spans(&received.lock().expect("not poisoned"));
        if found
            .iter()
            .filter(|span| span.0 == "upstream_call")
            .count()
            >= 2
            && found.iter().any(|span| span.0 == "run_code")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let run = found
        .iter()
        .find(|span| span.0 == "run_code")
        .unwrap_or_else(|| panic!("no run_code span in {found:?}"));
    assert_eq!(
        (run.1.as_str(), run.3.as_str()),
        (trace, parent),
        "{found:?}"
    );
    let calls: Vec<_> = found
        .iter()
        .filter(|span| span.0 == "upstream_call")
        .collect();
    assert_eq!(calls.len(), 2, "{found:?}");
    for call in calls {
        assert_eq!(
            (call.1.as_str(), call.3.as_str()),
            (trace, run.2.as_str()),
            "{found:?}"
        );
    }
    // The logs are JSON lines, those of the call with its trace id.
    let logs = stderr.lock().expect("stderr lock").clone();
    let lines: Vec<Value> = logs
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    assert!(
        lines
            .iter()
            .any(|line| line["span"]["trace_id"] == trace && line["fields"]["message"] == "done"),
        "no log line of the call with its trace id in:\n{logs}"
    );
    let events = workspace.events();
    let propagated: Vec<&str> = events
        .lines()
        .filter_map(|line| line.strip_prefix("traceparent "))
        .collect();
    assert_eq!(propagated.len(), 2, "{events}");
    assert!(
        propagated
            .iter()
            .all(|value| value.starts_with(&format!("00-{trace}-"))),
        "{events}"
    );
}
