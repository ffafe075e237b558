//! Settlement, abort and failure: what run_code returns and what the
//! program's calls see when the run ends.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use coderun_code_mode::coderun_runtime::{RuntimeConfig, WasmCodeRuntime};
use coderun_code_mode::{
    AbortController, Mode, NO_OUTPUT, RUN_SETTLED, Tool, ToolRegistry, ToolResult,
};
use serde_json::json;
use tokio::sync::Notify;

use crate::{code_registry, open_schema, returned, run_code, run_code_with};

/// A tool that stays in its handler until its call is aborted (or a long
/// guard expires), then reports the abort reason it saw.
#[derive(Clone, Default)]
struct Slow {
    entered: Arc<AtomicUsize>,
    entered_notify: Arc<Notify>,
    reasons: Arc<Mutex<Vec<String>>>,
}

impl Slow {
    fn tool(&self, name: &str, concurrency_safe: bool) -> Tool {
        let slow = self.clone();
        Tool::new(name, "Waits to be aborted.", open_schema(), move |_, ctx| {
            let slow = slow.clone();
            async move {
                slow.entered.fetch_add(1, Ordering::SeqCst);
                slow.entered_notify.notify_one();
                let reason = tokio::select! {
                    reason = ctx.signal().aborted() => reason,
                    _ = tokio::time::sleep(Duration::from_secs(30)) => "never aborted".to_owned(),
                };
                slow.reasons.lock().expect("not poisoned").push(reason.clone());
                ToolResult::error(format!("stopped: {reason}"))
            }
        })
        .concurrency_safe(concurrency_safe)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outer_abort_stops_the_running_call_and_abandons_the_queued_one() {
    let slow = Slow::default();
    let (registry, events) = code_registry([slow.tool("slow", false)]);
    let controller = AbortController::new();
    let execution = tokio::spawn({
        let registry = registry.clone();
        let signal = controller.signal();
        async move {
            run_code_with(
                &registry,
                "await Promise.all([tools.slow(), tools.slow()]);\nreturn 'finished';",
                signal,
            )
            .await
        }
    });
    slow.entered_notify.notified().await;
    // Give the second call time to reach the queue behind the first; it is
    // never dispatched either way.
    tokio::time::sleep(Duration::from_millis(50)).await;
    controller.abort("the user pressed stop");
    let result = execution.await.unwrap();

    assert!(result.is_error);
    let text = result.text_content();
    assert!(
        text.starts_with("code run failed (abort): the user pressed stop"),
        "{text}"
    );
    assert_eq!(result.structured.as_ref().unwrap()["kind"], "abort");
    assert_eq!(
        slow.entered.load(Ordering::SeqCst),
        1,
        "the queued call ran"
    );
    assert_eq!(*slow.reasons.lock().unwrap(), ["the user pressed stop"]);
    let events = events.take();
    assert_eq!(events.len(), 1);
    assert!(events[0].is_error);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_still_running_at_settlement_is_aborted_and_awaited() {
    let slow = Slow::default();
    // `started` returns once `slow` is in its handler; both may overlap.
    let entered = Arc::clone(&slow.entered_notify);
    let started = Tool::new("started", "Waits for slow.", open_schema(), move |_, _| {
        let entered = Arc::clone(&entered);
        async move {
            entered.notified().await;
            ToolResult::text("slow is running")
        }
    })
    .concurrency_safe(true);
    let (registry, events) = code_registry([slow.tool("slow", true), started]);
    let program = "tools.slow().catch(() => {});\nreturn await tools.started();";
    let result = run_code(&registry, program).await;

    assert_eq!(returned(&result), json!("slow is running"));
    // run_code returned only after the unawaited call saw the run settle.
    assert_eq!(*slow.reasons.lock().unwrap(), [RUN_SETTLED]);
    let mut names: Vec<String> = events.take().into_iter().map(|e| e.name).collect();
    names.sort();
    assert_eq!(names, ["slow", "started"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_aborted_call_runs_nothing() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let tool = Tool::new("count", "Counts.", open_schema(), move |_, _| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { ToolResult::text("") }
    });
    let (registry, events) = code_registry([tool]);
    let controller = AbortController::new();
    controller.abort("cancelled before it began");
    let result = run_code_with(&registry, "await tools.count();", controller.signal()).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "code run failed (abort): cancelled before it began"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert!(events.take().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_is_a_tool_error_carrying_the_captured_output() {
    let mut config = RuntimeConfig::new();
    config.fuel(50_000_000);
    let runtime = WasmCodeRuntime::new(config).unwrap();
    let mut registry = ToolRegistry::new();
    registry.mode(Mode::Code).runtime(Arc::new(runtime));
    let result = run_code(&registry, "console.log('about to spin');\nfor (;;) {}").await;
    assert!(result.is_error);
    let text = result.text_content();
    assert!(text.starts_with("code run failed (timeout): "), "{text}");
    assert!(text.contains("fuel"), "{text}");
    assert!(
        text.ends_with("\n\noutput before the failure:\nabout to spin"),
        "{text}"
    );
    let structured = result.structured.unwrap();
    assert_eq!(structured["kind"], "timeout");
    assert_eq!(
        structured["logs"],
        json!([{"level": "log", "text": "about to spin"}])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exception_is_a_tool_error_with_its_message() {
    let (registry, _) = code_registry([]);
    let result = run_code(&registry, "throw new Error('bad input');").await;
    assert!(result.is_error);
    let text = result.text_content();
    assert!(
        text.starts_with("code run failed (exception): Error: bad input"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_with_nothing_printed_or_returned_says_so() {
    let (registry, _) = code_registry([]);
    let result = run_code(&registry, "const unused = 1 + 1;").await;
    assert!(!result.is_error);
    assert_eq!(result.text_content(), NO_OUTPUT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_success_returns_the_logs_then_the_rendered_value() {
    let (registry, _) = code_registry([]);
    let program =
        "console.log('found', 2, 'files');\nreturn { count: 2, names: ['a.txt', 'b.txt'] };";
    let result = run_code(&registry, program).await;
    assert!(!result.is_error);
    assert_eq!(
        result.text_content(),
        "found 2 files\n{ count: 2, names: [ 'a.txt', 'b.txt' ] }"
    );
    let string = run_code(&registry, "return 'plain text';").await;
    assert_eq!(string.text_content(), "plain text");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_code_without_code_is_an_error() {
    let (registry, _) = code_registry([]);
    let call = coderun_code_mode::ToolCall::new("c", "run_code", json!({"program": "return 1"}));
    let result = registry.execute(call, crate::no_abort()).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        r#"run_code expects {"code": string} (got {"program":"return 1"})"#
    );
}
