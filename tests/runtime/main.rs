//! Behaviour of the runtime through its public API, in the real sandbox.

use std::sync::LazyLock;

use coderun_runtime::{
    CodeBindingNamespace, CodeRunRequest, CodeRunResult, CodeRuntime, FailureKind, RuntimeConfig,
    WasmCodeRuntime,
};

mod basics;
mod bindings;
mod budgets;
mod console;
mod durable;
mod egress;
mod fetch;
mod hostile;
mod intl;
mod isolation;
mod json_costs;
mod lifecycle;
mod parsing;
mod plain_values;
mod promises;
mod registry;
mod render;
mod render_lines;
mod results;
mod streams;
mod stringify;
mod timers;
mod transcoding;
mod transcoding_costs;
mod values;
mod web;

/// One runtime with the default budgets, shared by the tests that do not
/// need their own.
static SHARED: LazyLock<WasmCodeRuntime> = LazyLock::new(|| {
    let mut config = RuntimeConfig::new();
    config.max_concurrent_runs(256);
    WasmCodeRuntime::new(config).expect("the default runtime builds")
});

fn shared() -> &'static WasmCodeRuntime {
    &SHARED
}

/// A runtime of its own, for tests that change a budget.
fn runtime_with(configure: impl FnOnce(&mut RuntimeConfig)) -> WasmCodeRuntime {
    let mut config = RuntimeConfig::new();
    config.max_concurrent_runs(8);
    configure(&mut config);
    WasmCodeRuntime::new(config).expect("the runtime builds")
}

async fn run(source: &str) -> CodeRunResult {
    run_request(CodeRunRequest::new(source)).await
}

async fn run_request(request: CodeRunRequest) -> CodeRunResult {
    shared().run(request).await.expect("no misuse")
}

/// Runs `request` and checks that it succeeded with `expected`.
async fn returns(request: CodeRunRequest, expected: serde_json::Value) {
    let result = run_request(request).await;
    assert_ok(&result);
    assert_eq!(result.value, Some(expected));
}

/// The fuel a successful run of `source` burns (deterministic), for the
/// tests that bound what a step costs by the difference of two programs.
async fn fuel_of(source: &str) -> f64 {
    let result = run(source).await;
    assert_ok(&result);
    result.fuel_consumed as f64
}

#[track_caller]
fn assert_ok(result: &CodeRunResult) {
    assert!(result.error.is_none(), "the run failed: {:?}", result.error);
}

#[track_caller]
fn assert_failure(result: &CodeRunResult, kind: FailureKind, needle: &str) {
    let Some(error) = &result.error else {
        panic!(
            "expected a {kind} failure, the run succeeded with {:?}",
            result.value
        );
    };
    assert_eq!(error.kind, kind, "unexpected failure: {error}");
    assert!(
        error.message.contains(needle),
        "the {kind} message lacks {needle:?}: {}",
        error.message
    );
}

/// `tools.echo` returns its argument; `tools.fail` rejects with "nope".
fn tools() -> CodeBindingNamespace {
    CodeBindingNamespace::new("tools")
        .function("echo", |args| async move { Ok(args) })
        .function("fail", |_| async move { Err("nope".into()) })
}
