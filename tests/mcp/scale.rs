//! Serving at scale: three `coderun mcp --listen` replicas on loopback
//! behind HAProxy (from Debian; round-robin, no affinity, health-checked
//! on `/readyz`), driven by rmcp clients on MCP 2026-07-28, where every
//! request stands alone and may reach any replica.
//!
//! `CODERUN_SCALE_RUNS` sets the load (100 in `make test`, 1,000 in
//! `make scale-test`); a tenth as many approvals.

use std::collections::BTreeMap;
use std::net::TcpListener as StdListener;
use std::process::Stdio;

use futures::StreamExt as _;
use rmcp::model::{
    ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _, RequestContext};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ErrorData};

use super::http::HttpServer;
use super::*;

/// One replica: the server and its operations address.
struct Replica {
    server: HttpServer,
    ops: String,
}

fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

async fn start_replica(config: &Path, extra: &[&str]) -> Replica {
    let config = config.display().to_string();
    let mut args = vec!["--config", &config, "--ops-listen", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let server = HttpServer::start("0", &args, &[]).await;
    let ops = server.ops();
    Replica { server, ops }
}

/// `name{labels} value` of a replica's metrics, summed over the series
/// whose line starts with `prefix`.
async fn metric(replica: &Replica, prefix: &str) -> f64 {
    let (_, text) = super::http::http_get(&replica.ops, "/metrics", "").await;
    text.lines()
        .filter(|line| line.starts_with(prefix))
        .filter_map(|line| line.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum()
}

/// HAProxy in front of `replicas`, round-robin, each checked on its
/// `/readyz`; its address.
fn balancer(dir: &Path, replicas: &[Replica]) -> (tokio::process::Child, String) {
    let port = free_port();
    let mut config = format!(
        "global\n  maxconn 2000\n\
         defaults\n  mode http\n  timeout connect 2s\n  timeout client 120s\n  timeout server 120s\n\
         frontend mcp\n  bind 127.0.0.1:{port}\n  default_backend replicas\n\
         backend replicas\n  balance roundrobin\n  option httpchk GET /readyz\n"
    );
    for (n, replica) in replicas.iter().enumerate() {
        let (_, ops_port) = replica.ops.rsplit_once(':').expect("host:port");
        let mcp = replica.server.url();
        let addr = mcp
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .expect("an address");
        config.push_str(&format!(
            "  server r{n} {addr} check port {ops_port} inter 200ms fall 1 rise 1\n"
        ));
    }
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, config).expect("write the HAProxy configuration");
    let haproxy = ["/usr/sbin/haproxy", "/usr/local/sbin/haproxy"]
        .into_iter()
        .find(|path| Path::new(path).is_file())
        .expect("HAProxy is installed (make test installs it)");
    let child = tokio::process::Command::new(haproxy)
        .args(["-db", "-f"])
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start HAProxy");
    (child, format!("http://127.0.0.1:{port}/mcp"))
}

/// A client on MCP 2026-07-28 whose user approves the calls whose
/// question names an even id.
#[derive(Clone)]
struct Approver;

impl ClientHandler for Approver {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let even = message
            .split("\"a")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n % 2 == 0);
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": even})))
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.capabilities.elicitation = Some(ElicitationCapability::default());
        info
    }
}

async fn connect(url: &str) -> RunningService<RoleClient, Approver> {
    connect_as(Approver, url).await
}

async fn connect_as<H: ClientHandler + Clone>(
    handler: H,
    url: &str,
) -> RunningService<RoleClient, H> {
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    for _ in 0..50 {
        if let Ok(client) = handler
            .clone()
            .serve_with_lifecycle(
                StreamableHttpClientTransport::from_uri(url.to_owned()),
                lifecycle.clone(),
            )
            .await
        {
            return client;
        }
        // HAProxy marks the replicas up after its first checks.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("could not connect through the balancer at {url}")
}

fn run_code(code: String) -> CallToolRequestParams {
    let Value::Object(arguments) = json!({ "code": code }) else {
        unreachable!()
    };
    CallToolRequestParams::new("run_code").with_arguments(arguments)
}

/// Load and approvals across replicas: every result correct, the runs
/// spread over all three, each approved call run exactly once and each
/// rejected one never, whichever replica paused it and whichever resumed
/// it; the replicas' metrics count what the test did.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_behind_a_balancer_share_load_and_approvals() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runs: u64 = std::env::var("CODERUN_SCALE_RUNS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(100);
    let approvals = (runs / 10).max(2);
    let workspace = Workspace::new();
    let key = workspace.dir.path().join("state-key");
    std::fs::write(&key, "0123456789abcdef0123456789abcdef-scale\n").expect("write the key");
    let events = workspace.events_file();
    let config = workspace.write_config(&json!({
        "mcpServers": {
            "fx": {"command": "node", "args": [fixture()], "env": {"FIXTURE_EVENTS": events}},
            "gated": {"command": "node", "args": [fixture()], "env": {"FIXTURE_EVENTS": events},
                      "requireApproval": "always"}
        },
        "requestState": {"keys": [{"id": "scale", "file": key}]}
    }));
    let mut replicas = Vec::new();
    for _ in 0..3 {
        replicas.push(start_replica(&config, &[]).await);
    }
    let (_haproxy, url) = balancer(workspace.dir.path(), &replicas);
    let client = connect(&url).await;

    let wrong: Vec<String> = futures::stream::iter(0..runs)
        .map(|n| {
            let peer = client.peer().clone();
            async move {
                let result = peer.call_tool(run_code(format!("return {n} * 3;"))).await;
                match result {
                    Ok(result)
                        if result.structured_content.as_ref().map(|s| &s["value"])
                            == Some(&json!(n * 3)) =>
                    {
                        None
                    }
                    other => Some(format!("run {n}: {other:?}")),
                }
            }
        })
        .buffer_unordered(50)
        .filter_map(|wrong| async move { wrong })
        .collect()
        .await;
    assert!(
        wrong.is_empty(),
        "{} wrong results, first: {:?}",
        wrong.len(),
        wrong.first()
    );
    let mut served = Vec::new();
    for replica in &replicas {
        served.push(metric(replica, "coderun_runs_total{outcome=\"ok\"").await);
    }
    assert!(
        served.iter().all(|&n| n > 0.0),
        "every replica served runs: {served:?}"
    );
    #[allow(clippy::cast_precision_loss, reason = "small counts")]
    let expected = runs as f64;
    assert_eq!(served.iter().sum::<f64>(), expected, "{served:?}");

    let answers: Vec<(u64, String)> = futures::stream::iter(0..approvals)
        .map(|n| {
            let client = &client;
            async move {
                let code = format!(
                    "try {{ return await tools.gated_count({{ id: \"a{n}\" }}); }} \
                     catch (e) {{ return 'kept: ' + (e as Error).message; }}"
                );
                let result = client.call_tool(run_code(code)).await.expect("tools/call");
                let value = result.structured_content.as_ref().expect("structured")["value"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                (n, value)
            }
        })
        .buffer_unordered(10)
        .collect()
        .await;
    let recorded = std::fs::read_to_string(&events).unwrap_or_default();
    let mut counted: BTreeMap<String, usize> = BTreeMap::new();
    for line in recorded.lines() {
        if let Some(id) = line.strip_prefix("counted ") {
            *counted.entry(id.to_owned()).or_default() += 1;
        }
    }
    for (n, value) in answers {
        let id = format!("a{n}");
        if n % 2 == 0 {
            assert_eq!(value, format!("counted {id}"), "approved call {n}");
            assert_eq!(
                counted.get(&id),
                Some(&1),
                "approved call {n} ran exactly once"
            );
        } else {
            assert!(
                value.starts_with("kept: not approved"),
                "rejected call {n}: {value}"
            );
            assert_eq!(counted.get(&id), None, "rejected call {n} never ran");
        }
    }
    let mut paused = 0.0;
    let mut resumed = 0.0;
    for replica in &replicas {
        paused += metric(replica, "coderun_approvals_paused_total").await;
        resumed += metric(replica, "coderun_approvals_resumed_total").await;
    }
    #[allow(clippy::cast_precision_loss, reason = "small counts")]
    let approvals = approvals as f64;
    assert_eq!((paused, resumed), (approvals, approvals));
    client.cancel().await.ok();
}

/// The configuration of the fixture server, twice (one of them gated),
/// sealing with one key; and the events file both write to.
fn replica_config(workspace: &Workspace) -> PathBuf {
    let key = workspace.dir.path().join("state-key");
    std::fs::write(&key, "0123456789abcdef0123456789abcdef-scale\n").expect("write the key");
    let events = workspace.events_file();
    workspace.write_config(&json!({
        "mcpServers": {
            "fx": {"command": "node", "args": [fixture()], "env": {"FIXTURE_EVENTS": events}},
            "gated": {"command": "node", "args": [fixture()], "env": {"FIXTURE_EVENTS": events},
                      "requireApproval": "always"}
        },
        "requestState": {"keys": [{"id": "scale", "file": key}]}
    }))
}

/// Runs `return n * 3` (after 50 ms) for each n through `peer`, 20 at
/// once, so that a replica stopped meanwhile has calls in flight; the ns whose
/// call failed (an error is allowed, a wrong value is not).
async fn load(peer: &rmcp::Peer<RoleClient>, ns: std::ops::Range<u64>) -> Vec<u64> {
    futures::stream::iter(ns)
        .map(|n| {
            let peer = peer.clone();
            async move {
                let code = format!(
                    "await new Promise((resolve) => setTimeout(resolve, 50)); return {n} * 3;"
                );
                match peer.call_tool(run_code(code)).await {
                    Ok(result) if result.is_error != Some(true) => {
                        let value =
                            &result.structured_content.as_ref().expect("structured")["value"];
                        assert_eq!(value, &json!(n * 3), "a wrong result for {n}");
                        None
                    }
                    Ok(_) | Err(_) => Some(n),
                }
            }
        })
        .buffer_unordered(20)
        .filter_map(|failed| async move { failed })
        .collect()
        .await
}

/// Retries the calls of `failed` through the balancer, up to five rounds
/// 300 ms apart (HAProxy takes a check to mark a replica down): those that
/// still fail.
async fn retry(peer: &rmcp::Peer<RoleClient>, mut failed: Vec<u64>) -> Vec<u64> {
    for _ in 0..5 {
        if failed.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut again = Vec::new();
        for n in failed {
            again.extend(load(peer, n..n + 1).await);
        }
        failed = again;
    }
    failed
}

/// A replica killed (SIGKILL) under load: its calls fail, never with a
/// wrong result, and succeed when retried through the balancer; the runs
/// paused before it died resume on the survivors, each approved call run
/// once. Then a replica drained (SIGTERM with `--drain-seconds`) under
/// load: it stops being picked, the calls that reach it are answered or
/// refused as retryable, retries succeed, and it exits 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_or_drained_under_load_loses_nothing() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let workspace = Workspace::new();
    let config = replica_config(&workspace);
    let mut replicas = Vec::new();
    for _ in 0..3 {
        replicas.push(start_replica(&config, &["--drain-seconds", "10"]).await);
    }
    let (_haproxy, url) = balancer(workspace.dir.path(), &replicas);
    // A client without elicitation gets paused runs back, to resume with
    // resume_code and the sealed id.
    let client = connect_as((), &url).await;
    let mut paused = Vec::new();
    for n in 0..10 {
        let result = client
            .peer()
            .call_tool(run_code(format!(
                "return await tools.gated_count({{ id: \"b{n}\" }});"
            )))
            .await
            .expect("tools/call");
        let id = result.structured_content.as_ref().expect("structured")["paused"]["id"]
            .as_str()
            .expect("a paused run")
            .to_owned();
        paused.push((n, id));
    }

    let peer = client.peer().clone();
    let loading = tokio::spawn(async move { load(&peer, 0..200).await });
    tokio::time::sleep(Duration::from_millis(150)).await;
    replicas[0].server.child.start_kill().expect("SIGKILL");
    let failed = loading.await.expect("the load task");
    assert!(!failed.is_empty(), "the killed replica had calls in flight");
    let left = retry(client.peer(), failed).await;
    assert!(
        left.is_empty(),
        "calls that failed again through the survivors: {left:?}"
    );

    for (n, id) in &paused {
        let Value::Object(arguments) = json!({"id": id, "approve": true}) else {
            unreachable!()
        };
        let done = client
            .peer()
            .call_tool(CallToolRequestParams::new("resume_code").with_arguments(arguments))
            .await
            .expect("resume_code on a survivor");
        assert_eq!(
            done.structured_content.as_ref().expect("structured")["value"],
            format!("counted b{n}")
        );
    }
    let recorded = std::fs::read_to_string(workspace.events_file()).unwrap_or_default();
    for (n, _) in &paused {
        let id = format!("counted b{n}");
        assert_eq!(
            recorded.lines().filter(|line| *line == id).count(),
            1,
            "b{n} ran once"
        );
    }

    let peer = client.peer().clone();
    let loading = tokio::spawn(async move { load(&peer, 0..200).await });
    tokio::time::sleep(Duration::from_millis(150)).await;
    super::shutdown::signal(&replicas[1].server.child, nix::sys::signal::Signal::SIGTERM)();
    let left = retry(client.peer(), loading.await.expect("the load task")).await;
    assert!(
        left.is_empty(),
        "calls that failed again after the drain: {left:?}"
    );
    let status = tokio::time::timeout(Duration::from_secs(15), replicas[1].server.child.wait())
        .await
        .expect("the drained replica exits")
        .expect("wait");
    assert!(status.success(), "{status:?}");
    client.cancel().await.ok();
}
