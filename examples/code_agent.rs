//! Code Mode end to end, with a scripted model: no API key needed.
//!
//! A registry holds a few real tools over a scratch workspace (list files,
//! read a file, count words, and a delete that always fails), and a
//! pre-execute hook that keeps `.env` files on the host. In mode `code` the
//! model is offered only `run_code` plus an SDK prompt section; the
//! "model" here is a fixed program, run through `run_code` on the wasm
//! sandbox. The example prints what the model is shown, the dispatch events
//! of the program's tool calls, and what `run_code` returned.
//!
//! Run it with `cargo run --example code_agent`.

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use coderun_code_mode::coderun_runtime::{RuntimeConfig, WasmCodeRuntime};
use coderun_code_mode::{
    AbortController, DispatchEvent, HookDecision, Mode, Tool, ToolCall, ToolRegistry, ToolResult,
};
use serde_json::{Value, json};

/// What the scripted model writes: survey the text files, then try two
/// things the host refuses.
const MODEL_PROGRAM: &str = r#"const listing = await tools.list_files();
const files = listing.split("\n").filter((name) => name.endsWith(".txt"));
console.log(`found ${files.length} text files: ${files.join(", ")}`);

// word_count is concurrency-safe; read_file calls still take turns.
const stats = await Promise.all(files.map(async (path) => {
  const text = await tools.read_file({ path });
  const counts = await tools.word_count({ text });
  return { path, words: counts.words, top: counts.top[0]?.word ?? null };
}));

try {
  await tools.delete_file({ path: files[0] });
} catch (e) {
  console.log("delete refused:", (e as Error).message);
}
try {
  await tools.read_file({ path: ".env" });
} catch (e) {
  console.log("read refused:", (e as Error).message);
}

return stats.sort((a, b) => b.words - a.words);
"#;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let workspace = Workspace::create()?;
    let result = run(&workspace.root).await;
    drop(workspace);
    result
}

async fn run(root: &Path) -> anyhow::Result<()> {
    let (events, mut received) = tokio::sync::mpsc::unbounded_channel::<DispatchEvent>();
    let runtime =
        WasmCodeRuntime::new(RuntimeConfig::default()).context("building the sandbox runtime")?;

    let mut registry = ToolRegistry::new();
    for tool in tools(root) {
        registry.register(tool)?;
    }
    registry
        .mode(Mode::Code)
        .runtime(Arc::new(runtime))
        .on_pre_execute(|call: &ToolCall| {
            let secret = call.arguments["path"]
                .as_str()
                .is_some_and(|path| path.ends_with(".env"));
            async move {
                if secret {
                    HookDecision::deny("secrets stay on the host")
                } else {
                    HookDecision::Allow
                }
            }
        })
        .event_sink(move |event: DispatchEvent| {
            let _ = events.send(event);
        });

    let assembly = registry.assemble()?;
    let offered: Vec<&str> = assembly.tools.iter().map(|t| t.name.as_str()).collect();
    println!("=== tools offered to the model: {offered:?}\n");
    println!(
        "=== SDK prompt section\n{}",
        assembly.sdk_section.as_deref().unwrap_or("(none)")
    );
    println!("=== the model calls run_code with\n{MODEL_PROGRAM}");

    let call = ToolCall::new("call_1", "run_code", json!({ "code": MODEL_PROGRAM }));
    let result = registry
        .execute(call, AbortController::new().signal())
        .await;

    println!("=== dispatch events");
    while let Ok(event) = received.try_recv() {
        println!(
            "{} {}({}) -> {}{:?}",
            event.sub_call_id,
            event.name,
            event.arguments,
            if event.is_error { "error: " } else { "" },
            event.result_summary,
        );
    }
    println!(
        "\n=== run_code result (is_error: {})\n{}",
        result.is_error,
        result.text_content()
    );
    anyhow::ensure!(!result.is_error, "the scripted program failed");
    Ok(())
}

/// An input schema of one required string property, `name`.
fn required_string(name: &str) -> Value {
    json!({
        "type": "object",
        "properties": {name: {"type": "string"}},
        "required": [name]
    })
}

/// The registry's tools, working on files under `root`.
fn tools(root: &Path) -> Vec<Tool> {
    let list_root = root.to_owned();
    let read_root = root.to_owned();
    vec![
        Tool::new(
            "list_files",
            "List the files in a workspace directory, one name per line.",
            json!({
                "type": "object",
                "properties": {
                    "dir": {"type": "string", "description": "Directory relative to the workspace; default \".\"."}
                }
            }),
            move |args, _ctx| {
                let root = list_root.clone();
                async move {
                    let dir = args["dir"].as_str().unwrap_or(".");
                    match resolve(&root, dir).and_then(|dir| list(&dir)) {
                        Ok(names) => ToolResult::text(names.join("\n")),
                        Err(message) => ToolResult::error(message),
                    }
                }
            },
        ),
        Tool::new(
            "read_file",
            "Read a UTF-8 text file from the workspace.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path relative to the workspace."}
                },
                "required": ["path"]
            }),
            move |args, _ctx| {
                let root = read_root.clone();
                async move {
                    let path = args["path"].as_str().unwrap_or_default();
                    // Small files: a blocking read is fine here.
                    match resolve(&root, path).and_then(|file| {
                        fs::read_to_string(&file).map_err(|e| format!("cannot read {path:?}: {e}"))
                    }) {
                        Ok(text) => ToolResult::text(text),
                        Err(message) => ToolResult::error(message),
                    }
                }
            },
        ),
        Tool::new(
            "word_count",
            "Count the words and lines of a text, with its most frequent words.",
            required_string("text"),
            |args, _ctx| async move {
                match args["text"].as_str() {
                    Some(text) => ToolResult::json(word_count(text)),
                    None => ToolResult::error("word_count needs a string `text`"),
                }
            },
        )
        .output_schema(json!({
            "type": "object",
            "properties": {
                "words": {"type": "integer"},
                "lines": {"type": "integer"},
                "top": {
                    "type": "array",
                    "description": "The three most frequent words, most frequent first.",
                    "items": {
                        "type": "object",
                        "properties": {"word": {"type": "string"}, "count": {"type": "integer"}},
                        "required": ["word", "count"]
                    }
                }
            },
            "required": ["words", "lines", "top"]
        }))
        .concurrency_safe(true),
        Tool::new(
            "delete_file",
            "Delete a file from the workspace.",
            required_string("path"),
            |args, _ctx| async move {
                ToolResult::error(format!(
                    "cannot delete {}: the workspace is read-only",
                    args["path"]
                ))
            },
        ),
    ]
}

/// `relative` under `root`, refusing absolute paths and `..`.
fn resolve(root: &Path, relative: &str) -> Result<PathBuf, String> {
    let path = Path::new(relative);
    if path
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!(
            "{relative:?} is outside the workspace: use a relative path without `..`"
        ));
    }
    Ok(root.join(path))
}

fn list(dir: &Path) -> Result<Vec<String>, String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}

fn word_count(text: &str) -> Value {
    let mut counts: Vec<(String, u64)> = Vec::new();
    let words = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty());
    let mut total = 0;
    for word in words {
        total += 1;
        let word = word.to_lowercase();
        match counts.iter_mut().find(|(w, _)| *w == word) {
            Some((_, n)) => *n += 1,
            None => counts.push((word, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let top: Vec<Value> = counts
        .iter()
        .take(3)
        .map(|(word, count)| json!({"word": word, "count": count}))
        .collect();
    json!({"words": total, "lines": text.lines().count(), "top": top})
}

/// A scratch directory with a few files, removed on drop.
struct Workspace {
    root: PathBuf,
}

impl Workspace {
    fn create() -> anyhow::Result<Self> {
        let root = std::env::temp_dir().join(format!("coderun-code-agent-{}", std::process::id()));
        fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
        let workspace = Self { root };
        for (name, text) in [
            (
                "haiku.txt",
                "An old silent pond\nA frog jumps into the pond\nSplash! Silence again\n",
            ),
            (
                "notes.txt",
                "Code Mode turns many tool calls into one program.\nThe program runs in a sandbox.\n",
            ),
            (
                "todo.txt",
                "write the example\nrun the example\nread the example output\n",
            ),
            (".env", "API_KEY=not-for-the-model\n"),
        ] {
            let path = workspace.root.join(name);
            fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(workspace)
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}
