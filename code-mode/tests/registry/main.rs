//! The registry, its modes and the run_code bridge, through the public API
//! and the real runtime (`WasmCodeRuntime`).

use std::sync::{Arc, LazyLock, Mutex};

use coderun_code_mode::coderun_runtime::{CodeRuntime, RuntimeConfig, WasmCodeRuntime};
use coderun_code_mode::{
    AbortController, AbortSignal, DispatchEvent, Mode, Tool, ToolCall, ToolRegistry, ToolResult,
};
use serde_json::{Value, json};

mod abort;
mod approval;
mod bridge;
mod catalog;
mod display;
mod globals;
mod identifiers;
mod modes;

/// One runtime with the default budgets, shared by the tests that do not
/// need their own.
static SHARED: LazyLock<WasmCodeRuntime> = LazyLock::new(|| {
    let mut config = RuntimeConfig::new();
    config.max_concurrent_runs(64);
    WasmCodeRuntime::new(config).expect("the default runtime builds")
});

fn shared_runtime() -> Arc<dyn CodeRuntime> {
    Arc::new(SHARED.clone())
}

/// The id of the run_code call every test makes.
const PARENT: &str = "call_7";

/// The dispatch events a registry recorded.
#[derive(Clone, Default)]
struct Events(Arc<Mutex<Vec<DispatchEvent>>>);

impl Events {
    fn take(&self) -> Vec<DispatchEvent> {
        std::mem::take(&mut *self.0.lock().expect("not poisoned"))
    }
}

/// A registry in mode `code` on the shared runtime, holding `tools`, with
/// its events recorded.
fn code_registry(tools: impl IntoIterator<Item = Tool>) -> (ToolRegistry, Events) {
    let mut registry = ToolRegistry::new();
    for tool in tools {
        registry.register(tool).expect("unique names");
    }
    let events = Events::default();
    let sink = events.clone();
    registry
        .mode(Mode::Code)
        .runtime(shared_runtime())
        .event_sink(move |event: DispatchEvent| sink.0.lock().expect("not poisoned").push(event));
    (registry, events)
}

/// A signal nobody fires.
fn no_abort() -> AbortSignal {
    AbortController::new().signal()
}

/// Executes `run_code` with `program`.
async fn run_code(registry: &ToolRegistry, program: &str) -> ToolResult {
    run_code_with(registry, program, no_abort()).await
}

async fn run_code_with(registry: &ToolRegistry, program: &str, signal: AbortSignal) -> ToolResult {
    let call = ToolCall::new(PARENT, "run_code", json!({ "code": program }));
    registry.execute(call, signal).await
}

/// The value the program returned, from run_code's structured result.
#[track_caller]
fn returned(result: &ToolResult) -> Value {
    assert!(
        !result.is_error,
        "run_code failed: {}",
        result.text_content()
    );
    let structured = result.structured.as_ref().expect("a structured result");
    structured
        .get("value")
        .cloned()
        .unwrap_or_else(|| panic!("the program returned nothing: {structured}"))
}

/// An object schema with optional properties (`args?:` in the SDK).
fn open_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// A tool whose handler returns `text`.
fn text_tool(name: &str, text: &'static str) -> Tool {
    Tool::new(
        name,
        format!("Returns {text:?}."),
        open_schema(),
        move |_, _| async move { ToolResult::text(text) },
    )
}

/// A tool that records every argument it is called with and returns it as JSON text.
fn echo_tool(name: &str, seen: Arc<Mutex<Vec<Value>>>) -> Tool {
    Tool::new(
        name,
        "Echoes its arguments.",
        open_schema(),
        move |args, _| {
            let seen = Arc::clone(&seen);
            async move {
                seen.lock().expect("not poisoned").push(args.clone());
                ToolResult::text(args.to_string())
            }
        },
    )
}
