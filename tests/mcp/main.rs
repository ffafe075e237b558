//! `coderun mcp` end to end: the real binary in front of real MCP servers
//! (the published filesystem and memory servers from npm, installed by
//! `make mcp-servers`, and `fixture-server.mjs` for failures), driven by
//! rmcp's client over stdio and streamable HTTP.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, JsonObject,
};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, BufReader};

const CODERUN: &str = env!("CARGO_BIN_EXE_coderun");

/// The npm packages of the published servers.
fn npm_servers() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tools/mcp-servers/node_modules/@modelcontextprotocol");
    assert!(
        dir.join("server-filesystem/dist/index.js").is_file()
            && dir.join("server-memory/dist/index.js").is_file(),
        "the MCP servers are not installed in {}: run `make mcp-servers` (or `make test`)",
        dir.display()
    );
    dir
}

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp/fixture-server.mjs")
        .display()
        .to_string()
}

/// A temporary directory with a file root for the filesystem server, the
/// memory server's file, and a configuration naming both.
struct Workspace {
    dir: tempfile::TempDir,
}

impl Workspace {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("files")).expect("files dir");
        Self { dir }
    }

    fn files(&self) -> PathBuf {
        self.dir.path().join("files")
    }

    fn memory_file(&self) -> PathBuf {
        self.dir.path().join("memory.jsonl")
    }

    fn events_file(&self) -> PathBuf {
        self.dir.path().join("events.txt")
    }

    /// The filesystem and memory servers.
    fn npm_config(&self) -> Value {
        let servers = npm_servers();
        json!({"mcpServers": {
            "filesystem": {
                "command": "node",
                "args": [servers.join("server-filesystem/dist/index.js"), self.files()]
            },
            "memory": {
                "command": "node",
                "args": [servers.join("server-memory/dist/index.js")],
                "env": {"MEMORY_FILE_PATH": self.memory_file()}
            }
        }})
    }

    /// The fixture server, and another copy of it that exits at start.
    fn fixture_config(&self) -> Value {
        json!({"mcpServers": {
            "fixture": {
                "command": "node",
                "args": [fixture()],
                "env": {"FIXTURE_EVENTS": self.events_file()}
            },
            "broken": {
                "command": "node",
                "args": [fixture()],
                "env": {"FIXTURE_EXIT_AT_START": "1"}
            }
        }})
    }

    fn write_config(&self, config: &Value) -> PathBuf {
        let path = self.dir.path().join("servers.json");
        std::fs::write(&path, config.to_string()).expect("write config");
        path
    }
}

/// A `coderun mcp` process and an rmcp client connected to it.
struct Session {
    client: RunningService<RoleClient, ()>,
    stderr: Arc<Mutex<String>>,
}

/// Collects a child's stderr into a string, line by line.
fn collect_stderr(stderr: tokio::process::ChildStderr) -> Arc<Mutex<String>> {
    let collected = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&collected);
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let mut text = sink.lock().expect("stderr lock");
            text.push_str(&line);
            text.push('\n');
        }
    });
    collected
}

impl Session {
    /// `coderun mcp <args>` over stdio.
    async fn stdio(args: &[&str]) -> Session {
        let mut command = tokio::process::Command::new(CODERUN);
        command.arg("mcp").args(args).kill_on_drop(true);
        let (transport, stderr) = TokioChildProcess::builder(command)
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn coderun mcp");
        let stderr = collect_stderr(stderr.expect("piped stderr"));
        let client = match ().serve(transport).await {
            Ok(client) => client,
            Err(error) => panic!(
                "connecting to coderun mcp: {error}\nits stderr:\n{}",
                stderr.lock().expect("lock")
            ),
        };
        Session { client, stderr }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").clone()
    }

    async fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.client
            .peer()
            .list_all_tools()
            .await
            .expect("tools/list")
    }

    async fn run_code(&self, program: &str) -> CallToolResult {
        run_code(&self.client, program).await
    }
}

async fn run_code(client: &RunningService<RoleClient, ()>, program: &str) -> CallToolResult {
    let mut arguments = JsonObject::new();
    arguments.insert("code".to_owned(), Value::from(program));
    client
        .peer()
        .call_tool(CallToolRequestParams::new("run_code").with_arguments(arguments))
        .await
        .expect("tools/call run_code")
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The program of the end-to-end tests: a file written through one
/// upstream and read back, entities created through the other.
fn round_trip_program(files: &Path) -> String {
    let path = files.join("note.txt");
    format!(
        r#"
const path = {path};
await tools.filesystem_write_file({{ path, content: "written through coderun" }});
const back = await tools.filesystem_read_text_file({{ path }});
await tools.memory_create_entities({{
  entities: [{{ name: "coderun", entityType: "project", observations: ["wrote " + path] }}],
}});
const graph = await tools.memory_read_graph({{}});
console.log("entities:", graph.entities.length);
return {{ content: back.content, entities: graph.entities.map((e) => e.name) }};
"#,
        path = Value::from(path.display().to_string())
    )
}

/// What every end-to-end test checks after running the program.
fn check_round_trip(workspace: &Workspace, result: &CallToolResult) {
    let text = text(result);
    assert_ne!(result.is_error, Some(true), "{text}");
    assert_eq!(
        text,
        "entities: 1\n{ content: 'written through coderun', entities: [ 'coderun' ] }"
    );
    let on_disk = std::fs::read_to_string(workspace.files().join("note.txt")).expect("the file");
    assert_eq!(on_disk, "written through coderun");
    let memory = std::fs::read_to_string(workspace.memory_file()).expect("the memory file");
    assert!(memory.contains("\"name\":\"coderun\""), "{memory}");
}

fn check_sdk_listing(tools: &[rmcp::model::Tool]) {
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["run_code"]);
    let description = tools[0].description.as_deref().unwrap_or_default();
    for declaration in [
        "declare const tools: {",
        "  filesystem_write_file(args: {\n    path: string;\n    content: string;\n  })",
        "  memory_create_entities(args: {",
        "  memory_read_graph(args?: ",
    ] {
        assert!(
            description.contains(declaration),
            "run_code's description lacks {declaration:?}:\n{description}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn stdio_serves_the_sdk_and_runs_a_program_across_two_upstreams() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.npm_config());
    let session = Session::stdio(&["--config", &config.display().to_string()]).await;
    check_sdk_listing(&session.tools().await);
    let result = session
        .run_code(&round_trip_program(&workspace.files()))
        .await;
    check_round_trip(&workspace, &result);
    session.client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn streamable_http_on_a_loopback_port_does_the_same() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.npm_config());
    let mut server = tokio::process::Command::new(CODERUN)
        .args([
            "mcp",
            "--config",
            &config.display().to_string(),
            "--listen",
            "0",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn coderun mcp --listen");
    let stderr = server.stderr.take().expect("piped stderr");
    let mut lines = BufReader::new(stderr).lines();
    let url = tokio::time::timeout(Duration::from_secs(60), async {
        let mut seen = String::new();
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.strip_prefix("coderun mcp: serving streamable HTTP at ") {
                return url.to_owned();
            }
            seen.push_str(&line);
            seen.push('\n');
        }
        panic!("coderun mcp exited without listening:\n{seen}");
    })
    .await
    .expect("coderun mcp --listen announces its address");
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    // Keep draining stderr so the server never blocks on it.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });

    let client =
        ().serve(StreamableHttpClientTransport::from_uri(url))
            .await
            .expect("connect over HTTP");
    check_sdk_listing(&client.peer().list_all_tools().await.expect("tools/list"));
    let result = run_code(&client, &round_trip_program(&workspace.files())).await;
    check_round_trip(&workspace, &result);
    client.cancel().await.expect("close");
    server.kill().await.expect("stop the server");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_that_exits_at_start_is_named_and_the_others_are_served() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let session = Session::stdio(&["--config", &config.display().to_string()]).await;

    let tools = session.tools().await;
    let description = tools[0].description.as_deref().unwrap_or_default();
    assert!(
        description.contains("  fixture_echo(args: {"),
        "{description}"
    );
    assert!(!description.contains("broken_echo"), "{description}");
    let unavailable = &description[description.find("## Unavailable").expect("a note")..];
    assert!(unavailable.contains("upstream \"broken\""), "{unavailable}");
    assert!(unavailable.contains("refusing to start"), "{unavailable}");
    assert!(
        session.stderr().contains("upstream \"broken\""),
        "{}",
        session.stderr()
    );

    let result = session
        .run_code("return await tools.fixture_echo({ text: 'still serving' })")
        .await;
    assert_eq!(text(&result), "still serving");
}

#[tokio::test(flavor = "multi_thread")]
async fn mode_both_offers_the_upstream_tools_natively_too() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let session =
        Session::stdio(&["--config", &config.display().to_string(), "--mode", "both"]).await;
    let tools = session.tools().await;
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(
        names,
        // Registration order: the upstream's own order, then run_code.
        [
            "fixture_echo",
            "fixture_fail",
            "fixture_crash",
            "fixture_wait",
            "run_code"
        ]
    );
    let mut arguments = JsonObject::new();
    arguments.insert("text".to_owned(), Value::from("direct"));
    let result = session
        .client
        .peer()
        .call_tool(CallToolRequestParams::new("fixture_echo").with_arguments(arguments))
        .await
        .expect("a native call");
    assert_eq!(text(&result), "direct");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_that_dies_mid_call_rejects_that_call_naming_it() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let session = Session::stdio(&["--config", &config.display().to_string()]).await;
    let result = session
        .run_code(
            "try {\n  await tools.fixture_crash({});\n  return 'no error';\n} catch (error) {\n  \
             return error.message;\n}",
        )
        .await;
    let message = text(&result);
    assert_ne!(result.is_error, Some(true), "{message}");
    assert!(
        message.starts_with("upstream \"fixture\" lost the connection"),
        "{message}"
    );
    assert!(
        message.contains("during a call of its tool \"crash\""),
        "{message}"
    );
    assert!(message.contains("crashing on purpose"), "{message}");

    // The other calls of the dead upstream fail fast, naming it too.
    let again = session
        .run_code("return await tools.fixture_echo({ text: 'x' })")
        .await;
    assert_eq!(again.is_error, Some(true));
    assert!(
        text(&again).contains("upstream \"fixture\""),
        "{}",
        text(&again)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn upstream_errors_and_hangs_reject_the_call_with_the_upstreams_message() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let session = Session::stdio(&[
        "--config",
        &config.display().to_string(),
        "--call-timeout",
        "0.5",
    ])
    .await;
    let result = session
        .run_code(
            "const messages = [];\n\
             for (const call of [() => tools.fixture_fail({}), () => tools.fixture_wait({})]) {\n\
               try { await call(); } catch (error) { messages.push(error.message); }\n\
             }\n\
             return messages.join('\\n');",
        )
        .await;
    let text = text(&result);
    assert_eq!(
        text,
        "the fixture failed on purpose\nupstream \"fixture\" did not answer a call of its tool \
         \"wait\" within 0.5s; the call was cancelled"
    );
    let events = workspace.events_file();
    eventually("the hung call to be cancelled upstream", || {
        std::fs::read_to_string(&events)
            .unwrap_or_default()
            .contains("cancelled")
    })
    .await;
}

/// Polls `condition` until it holds (or fails the test after 30 s).
async fn eventually(what: &str, condition: impl Fn() -> bool) {
    for _ in 0..300 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test(flavor = "multi_thread")]
async fn client_cancellation_aborts_the_run_and_cancels_the_upstream_call() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let session = Session::stdio(&["--config", &config.display().to_string()]).await;

    let mut arguments = JsonObject::new();
    arguments.insert(
        "code".to_owned(),
        Value::from("await tools.fixture_wait({});\nreturn 'not cancelled';"),
    );
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("run_code").with_arguments(arguments),
    ));
    let handle = session
        .client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("send run_code");
    let events = workspace.events_file();
    let read_events = || std::fs::read_to_string(&events).unwrap_or_default();
    eventually("the upstream call to start", || {
        read_events().contains("started")
    })
    .await;

    handle
        .cancel(Some("the user gave up".to_owned()))
        .await
        .expect("send the cancellation");
    eventually("the upstream to see the cancellation", || {
        read_events().contains("cancelled")
    })
    .await;
    eventually("the run to end as abort", || {
        session
            .stderr()
            .contains("failed: code run failed (abort): ")
    })
    .await;
    // The server is still usable.
    let result = session.run_code("return 1 + 1").await;
    assert_eq!(text(&result), "2");
}

#[test]
fn sdk_prints_the_declarations_and_names_a_failed_upstream() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let output = std::process::Command::new(CODERUN)
        .args(["sdk", "--config", &config.display().to_string()])
        .output()
        .expect("run coderun sdk");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stdout.starts_with("declare const tools: {\n"), "{stdout}");
    assert!(stdout.contains("  fixture_wait(args?: {"), "{stdout}");
    assert!(
        stderr.contains("coderun sdk: upstream \"broken\""),
        "{stderr}"
    );
    assert_eq!(output.status.code(), Some(1), "{stderr}");
}

#[test]
fn a_bad_configuration_is_a_usage_error_naming_the_key() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&json!({"mcpServers": {"a": {"url": "ftp://x"}}}));
    let output = std::process::Command::new(CODERUN)
        .args(["mcp", "--config", &config.display().to_string()])
        .stdin(Stdio::null())
        .output()
        .expect("run coderun mcp");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("mcpServers.a: \"url\" must start with http"),
        "{stderr}"
    );
}
