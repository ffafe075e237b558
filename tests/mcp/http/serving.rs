//! The HTTP server in operation: sessions that keep their paused runs to
//! themselves, MCP 2026's stateless requests, the operations port, and
//! draining on SIGTERM.

use super::*;

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
        json!({"code": crate::approval::program(&workspace.files())}),
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
    let node = crate::conformance::node().display().to_string();
    let fixture = crate::conformance::conformance_fixture();
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
        crate::shutdown::signal(&server.child, Signal::SIGTERM)();

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
