//! `coderun mcp` end to end: the real binary in front of real MCP servers
//! (the published filesystem and memory servers from npm, installed by
//! `make mcp-servers`, and `fixture-server.mjs` for failures), driven by
//! rmcp's client over stdio and streamable HTTP, and by raw JSON-RPC lines
//! and raw HTTP requests where the wire format is what is tested.

mod approval;
mod catalog;
mod cli;
mod conformance;
mod egress;
#[allow(dead_code, reason = "each test target uses part of it")]
#[path = "../common/fuzz_input.rs"]
mod fuzz_input;
mod gateway;
mod hostile;
mod http;
mod jsonrpc;
mod progress;
mod scale;
mod shutdown;
mod tasks;
mod traces;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

const CODERUN: &str = env!("CARGO_BIN_EXE_coderun");

/// `coderun`, with its compile cache in the tests' own directory rather
/// than the user's.
fn coderun_std() -> std::process::Command {
    let mut command = std::process::Command::new(CODERUN);
    command.env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"));
    command
}

/// [`coderun_std`] for tokio.
fn coderun_command() -> tokio::process::Command {
    tokio::process::Command::from(coderun_std())
}

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

    /// The fixture server alone, stubborn (see fixture-server.mjs): it
    /// ignores SIGTERM and the end of stdin, and has a grandchild.
    fn stubborn_fixture_config(&self) -> Value {
        json!({"mcpServers": {
            "fixture": {
                "command": "node",
                "args": [fixture()],
                "env": {"FIXTURE_EVENTS": self.events_file(), "FIXTURE_STUBBORN": "1"}
            }
        }})
    }

    fn events(&self) -> String {
        std::fs::read_to_string(self.events_file()).unwrap_or_default()
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
    pid: Option<u32>,
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
        let mut command = coderun_command();
        command.arg("mcp").args(args).kill_on_drop(true);
        let (transport, stderr) = TokioChildProcess::builder(command)
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn coderun mcp");
        let stderr = collect_stderr(stderr.expect("piped stderr"));
        let pid = transport.id();
        let client = match ().serve(transport).await {
            Ok(client) => client,
            Err(error) => panic!(
                "connecting to coderun mcp: {error}\nits stderr:\n{}",
                stderr.lock().expect("lock")
            ),
        };
        Session {
            client,
            stderr,
            pid,
        }
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

/// Polls `condition` until it holds (or fails the test after 30 s).
async fn eventually(what: &str, condition: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while tokio::time::Instant::now() < deadline {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("timed out waiting for {what}");
}

/// `coderun mcp <args>` driven with raw JSON-RPC lines over its stdin and
/// stdout.
struct RawSession {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: tokio::io::Lines<BufReader<ChildStdout>>,
    stderr: Arc<Mutex<String>>,
}

impl RawSession {
    async fn start(args: &[&str]) -> RawSession {
        RawSession::start_with(args, true).await
    }

    /// With `read_stderr` false, the read end of coderun's stderr is closed
    /// at once, as a parent that does not want its logs would: every write
    /// coderun makes there fails.
    async fn start_with(args: &[&str], read_stderr: bool) -> RawSession {
        let mut child = coderun_command()
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn coderun mcp");
        let piped = child.stderr.take().expect("piped stderr");
        let stderr = if read_stderr {
            collect_stderr(piped)
        } else {
            drop(piped);
            Arc::new(Mutex::new(String::from("(stderr closed by the test)")))
        };
        RawSession {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().expect("piped stdout")).lines(),
            child,
            stderr,
        }
    }

    /// Starts one and completes the MCP handshake.
    async fn initialized(args: &[&str]) -> RawSession {
        RawSession::initialized_with(args, true).await
    }

    async fn initialized_with(args: &[&str], read_stderr: bool) -> RawSession {
        let mut session = RawSession::start_with(args, read_stderr).await;
        session
            .send(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}
                }}),
            )
            .await;
        let reply = session.reply().await;
        assert_eq!(reply["id"], 0, "{reply}");
        assert_eq!(reply["result"]["serverInfo"]["name"], "coderun", "{reply}");
        session
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        session
    }

    fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").clone()
    }

    async fn send_line(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line).await.expect("write a line");
        stdin.write_all(b"\n").await.expect("write a newline");
        stdin.flush().await.expect("flush stdin");
    }

    async fn send(&mut self, message: &Value) {
        self.send_line(message.to_string().as_bytes()).await;
    }

    /// The next line coderun writes, as JSON.
    async fn reply(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(60), self.stdout.next_line()).await;
        match line {
            Ok(Ok(Some(line))) => serde_json::from_str(&line)
                .unwrap_or_else(|error| panic!("not JSON ({error}): {line}")),
            other => panic!(
                "no reply from coderun mcp ({other:?}); its stderr:\n{}",
                self.stderr()
            ),
        }
    }

    /// Sends `request` and returns the reply.
    async fn call(&mut self, request: &Value) -> Value {
        self.send(request).await;
        self.reply().await
    }
}

/// The reply to a request, which must be a JSON-RPC error with `id` and
/// `code` whose message contains `needle`.
#[track_caller]
fn assert_error(reply: &Value, id: &Value, code: i64, needle: &str) {
    assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
    let object = reply.as_object().expect("an object");
    assert!(object.contains_key("id"), "the reply has no id: {reply}");
    assert_eq!(&reply["id"], id, "{reply}");
    assert_eq!(reply["error"]["code"], code, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "{message:?} lacks {needle:?}");
}

/// The live (not zombie) processes whose process group is `pgid`, from
/// /proc.
fn live_processes_in_group(pgid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // pid (comm) state ppid pgrp ...; comm may hold spaces.
            let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
            let (state, pgrp) = (fields.first()?, fields.get(2)?.parse::<i32>().ok()?);
            (pgrp == pgid && !matches!(*state, "Z" | "X")).then_some(pid)
        })
        .collect()
}

/// The pid a fixture event `<key> <pid>` names.
fn event_pid(events: &str, key: &str) -> Option<i32> {
    events.lines().find_map(|line| {
        line.strip_prefix(key)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}
