//! `make bench-tokens`: the bytes that enter a model's context for three
//! scripted tasks over the captured catalog of 23 published MCP servers
//! (code-mode/tests/data/mcp/catalog, 333 tools), natively (the tool list,
//! then every call's arguments and result) and through `run_code` (its
//! description, the program, and the program's output). Writes the table
//! between the `tokens` markers of benches/RESULTS.md.
//!
//! The tools' handlers return deterministic data shaped like the servers'
//! (issues of a GitHub repository); the programs run in the real sandbox.

use std::path::Path;
use std::sync::Arc;

use coderun::code_mode::coderun_runtime::{RuntimeConfig, WasmCodeRuntime};
use coderun::code_mode::{AbortController, Mode, Tool, ToolCall, ToolRegistry, ToolResult};
use serde_json::{Value, json};

fn issue(n: u64) -> Value {
    json!({
        "number": n, "title": format!("Issue {n}: {}", ["crash on start", "slow search", "typo in docs", "login fails"][(n % 4) as usize]),
        "state": if n.is_multiple_of(3) { "closed" } else { "open" },
        "labels": [{"name": if n.is_multiple_of(5) { "bug" } else { "enhancement" }}],
        "user": {"login": format!("user{}", n % 17)},
        "body": "Steps to reproduce: open the app, click the button, wait. Expected the page to load; it did not. ".repeat(8),
        "comments": n % 7, "created_at": "2026-01-01T00:00:00Z",
    })
}

fn handler(name: &str, args: &Value) -> String {
    if name.ends_with("list_issues") {
        let issues: Vec<Value> = (1..=200).map(issue).collect();
        return Value::Array(issues).to_string();
    }
    if name.ends_with("get_issue") {
        return issue(args["issue_number"].as_u64().unwrap_or(1)).to_string();
    }
    json!({"ok": true, "tool": name}).to_string()
}

fn registry() -> (ToolRegistry, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("code-mode/tests/data/mcp/catalog");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("catalog")
        .map(|e| e.expect("entry").path())
        .collect();
    files.retain(|p| {
        p.extension().is_some_and(|e| e == "json") && !p.to_string_lossy().contains("package")
    });
    files.sort();
    let mut registry = ToolRegistry::new();
    let mut native = Vec::new();
    for file in files {
        let server = file
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .replace('-', "_");
        let listed: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
        for tool in listed["tools"].as_array().expect("tools") {
            let name = format!("{server}_{}", tool["name"].as_str().expect("name"));
            let mut listed_tool = tool.clone();
            listed_tool["name"] = Value::from(name.clone());
            native.push(listed_tool);
            let owned = name.clone();
            let made = Tool::new(
                name,
                tool["description"].as_str().unwrap_or_default(),
                tool["inputSchema"].clone(),
                move |args, _| {
                    let text = handler(&owned, &args);
                    async move { ToolResult::text(text) }
                },
            )
            .group(server.clone());
            registry.register(made).expect("unique");
        }
    }
    let runtime = WasmCodeRuntime::new(RuntimeConfig::default()).expect("runtime");
    registry.mode(Mode::Code).runtime(Arc::new(runtime));
    (
        registry,
        serde_json::to_string(&json!({"tools": native}))
            .expect("json")
            .len(),
    )
}

/// A task: the native calls (tool, arguments) a model would make one by
/// one, and the program doing the same in one `run_code`.
struct Task {
    name: &'static str,
    native: Vec<(&'static str, Value)>,
    program: &'static str,
}

fn tasks() -> Vec<Task> {
    vec![
        Task {
            name: "fan-out: the state of 30 issues",
            native: (1..=30)
                .map(|n| {
                    (
                        "github_get_issue",
                        json!({"owner": "o", "repo": "r", "issue_number": n}),
                    )
                })
                .collect(),
            program: "const out = [];\nfor (let n = 1; n <= 30; n++) {\n  const i = JSON.parse(await tools.github_get_issue({ owner: 'o', repo: 'r', issue_number: n }));\n  out.push(`${i.number}:${i.state}`);\n}\nreturn out.join(' ');",
        },
        Task {
            name: "discovery: find and use 3 tools",
            native: vec![
                (
                    "github_create_issue",
                    json!({"owner": "o", "repo": "r", "title": "t"}),
                ),
                (
                    "slack_slack_post_message",
                    json!({"channel_id": "C1", "text": "filed"}),
                ),
                ("stripe_create_customer", json!({"name": "Ada"})),
            ],
            program: "const names = [];\nfor (const q of ['create an issue in a github repository', 'post a message to a slack channel', 'create a stripe customer']) {\n  const [hit] = await tools.$search(q, { limit: 1 });\n  names.push(hit.name);\n  await tools[hit.name]({});\n}\nreturn names;",
        },
        Task {
            name: "pipeline: open bugs out of 200 issues",
            native: vec![(
                "github_list_issues",
                json!({"owner": "o", "repo": "r", "state": "all"}),
            )],
            program: "const issues = JSON.parse(await tools.github_list_issues({ owner: 'o', repo: 'r', state: 'all' }));\nreturn issues.filter((i) => i.state === 'open' && i.labels.some((l) => l.name === 'bug')).map((i) => i.number);",
        },
    ]
}

#[tokio::main]
async fn main() {
    let (registry, tool_list) = registry();
    let assembly = registry.assemble().expect("assembles");
    let mut run_code = serde_json::to_value(&assembly.tools[0]).expect("json");
    run_code["description"] = Value::from(format!(
        "{}\n\n{}",
        assembly.tools[0].description,
        assembly.sdk_section.unwrap_or_default()
    ));
    let description = run_code.to_string().len();
    let mut rows = String::new();
    for task in tasks() {
        let mut native = tool_list;
        for (name, args) in &task.native {
            native += args.to_string().len() + name.len();
            native += handler(name, args).len();
        }
        let call = ToolCall::new("bench", "run_code", json!({"code": task.program}));
        let result = registry
            .execute(call, AbortController::new().signal())
            .await;
        assert!(!result.is_error, "{}: {}", task.name, result.text_content());
        let code = description + task.program.len() + result.text_content().len();
        rows.push_str(&format!(
            "| {} | {} | {native} | {code} | {:.3}× |\n",
            task.name,
            task.native.len(),
            code as f64 / native as f64
        ));
    }
    let table = format!(
        "<!-- tokens:begin -->\n## Token economics (`make bench-tokens`)\n\n\
         Bytes entering the model's context for three scripted tasks over the captured catalog \
         of 23 published MCP servers ({} tools): natively, the tool list ({tool_list} bytes of \
         JSON) plus every call's arguments and result; through `run_code`, its description \
         ({description} bytes, `auto` disclosure) plus the program and its output. About 4 \
         bytes make a token.\n\n\
         | task | native calls | native bytes | run_code bytes | run_code / native |\n|---|---:|---:|---:|---:|\n{rows}<!-- tokens:end -->\n",
        registry.tools().len()
    );
    print!("{table}");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/RESULTS.md");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let updated = match (
        text.find("<!-- tokens:begin -->"),
        text.find("<!-- tokens:end -->\n"),
    ) {
        (Some(begin), Some(end)) => format!(
            "{}{table}{}",
            &text[..begin],
            &text[end + "<!-- tokens:end -->\n".len()..]
        ),
        _ => format!("{text}\n{table}"),
    };
    std::fs::write(&path, updated).expect("writing benches/RESULTS.md");
}
