//! The MCP workload: what `coderun mcp` adds to a program's calls to an
//! upstream MCP server. The upstream is the published memory server
//! (`make mcp-servers`); an MCP client calls its `read_graph` 5 times in
//! sequence, directly, and then sends one `run_code` to `coderun mcp`, in
//! front of another copy of the server, whose program makes the same 5
//! calls. Both connections are started once, so a batch measures calls, not
//! process starts; the batches alternate, so that a slow spell of a shared
//! machine falls on both alike.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use anyhow::{Context as _, ensure};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::process::Command;

use crate::{median, ms, percentile};

/// The upstream calls in a batch.
const CALLS: usize = 5;
/// The entities in the graph that `read_graph` returns.
const ENTITIES: usize = 3;

type Client = RunningService<RoleClient, ()>;

/// `batches` batches of each kind, after `warmup` of each.
pub async fn measure(batches: usize, warmup: usize) -> anyhow::Result<Value> {
    let server = memory_server()?;
    let dir = tempfile::tempdir()?;
    // Both copies of the server read the graph from this file.
    let memory_file = dir.path().join("memory.jsonl");

    let mut command = Command::new("node");
    command.arg(&server).env("MEMORY_FILE_PATH", &memory_file);
    let direct = connect(command)
        .await
        .context("connecting to the memory server")?;
    let entities: Vec<Value> = (0..ENTITIES)
        .map(|i| {
            let name = format!("entity-{i}");
            json!({ "name": name, "entityType": "bench", "observations": ["seeded"] })
        })
        .collect();
    call(&direct, "create_entities", json!({ "entities": entities })).await?;

    let config = dir.path().join("servers.json");
    let servers = json!({ "mcpServers": { "memory": {
        "command": "node",
        "args": [server],
        "env": { "MEMORY_FILE_PATH": memory_file },
    }}});
    std::fs::write(&config, servers.to_string())?;
    let mut command = Command::new(env!("CARGO_BIN_EXE_coderun"));
    command
        .args(["mcp", "--config"])
        .arg(&config)
        // The guest compiled once, in the build's directory, not the user's.
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"));
    let gateway = connect(command)
        .await
        .context("connecting to coderun mcp")?;

    let program = format!(
        "const sizes = [];\n\
         for (let i = 0; i < {CALLS}; i++) sizes.push((await tools.memory_read_graph({{}})).entities.length);\n\
         return sizes;"
    );
    let expected = json!(vec![ENTITIES; CALLS]);
    let (mut direct_ms, mut run_code_ms) = (Vec::new(), Vec::new());
    for batch in 0..warmup + batches {
        let start = Instant::now();
        for _ in 0..CALLS {
            let graph = call(&direct, "read_graph", json!({})).await?;
            let got = graph.structured_content.as_ref().map(|v| &v["entities"]);
            let got = got.and_then(Value::as_array).map(Vec::len);
            ensure!(got == Some(ENTITIES), "read_graph returned {graph:?}");
        }
        let direct_elapsed = ms(start.elapsed());

        let start = Instant::now();
        let result = call(&gateway, "run_code", json!({ "code": program })).await?;
        let run_code_elapsed = ms(start.elapsed());
        let value = result.structured_content.as_ref().map(|v| &v["value"]);
        ensure!(value == Some(&expected), "run_code returned {result:?}");

        if batch >= warmup {
            direct_ms.push(direct_elapsed);
            run_code_ms.push(run_code_elapsed);
        }
    }
    // Closing stdin is what stops each server (and coderun its upstream).
    direct.cancel().await?;
    gateway.cancel().await?;

    Ok(json!({
        "batches": batches,
        "calls_per_batch": CALLS,
        "direct_p50_ms": median(&direct_ms),
        "direct_p99_ms": percentile(&direct_ms, 0.99),
        "run_code_p50_ms": median(&run_code_ms),
        "run_code_p99_ms": percentile(&run_code_ms, 0.99),
    }))
}

/// The memory server's entry point, installed by `make mcp-servers`.
fn memory_server() -> anyhow::Result<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tools/mcp-servers/node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    ensure!(
        path.is_file(),
        "the memory MCP server is not installed at {}: run `make mcp-servers`",
        path.display()
    );
    Ok(path)
}

/// An MCP client of the server that `command` starts, its stderr (startup
/// banners) discarded.
async fn connect(mut command: Command) -> anyhow::Result<Client> {
    command.kill_on_drop(true);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()?;
    Ok(().serve(transport).await?)
}

/// Calls `tool` with `arguments`; a result flagged as an error is an `Err`.
async fn call(client: &Client, tool: &str, arguments: Value) -> anyhow::Result<CallToolResult> {
    let Value::Object(arguments) = arguments else {
        anyhow::bail!("the arguments of {tool} are not an object");
    };
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    let result = client.peer().call_tool(params).await?;
    ensure!(result.is_error != Some(true), "{tool} failed: {result:?}");
    Ok(result)
}
