//! The bridge's own unit tests.

use super::*;

fn tool(name: &str, schema: Value) -> Tool {
    Tool::new(name, "", schema, |_, _| async { ToolResult::text("") })
}

#[test]
fn a_missing_argument_is_an_empty_object_when_the_parameter_is_optional() {
    let optional = tool("list", json!({"type": "object", "properties": {"dir": {}}}));
    assert_eq!(normalize_arguments(&optional, Value::Null), Ok(json!({})));
}

#[test]
fn a_missing_argument_is_refused_when_the_parameter_is_required() {
    let required = tool(
        "my-read",
        json!({"type": "object", "properties": {"path": {}}, "required": ["path"]}),
    );
    assert_eq!(
        normalize_arguments(&required, Value::Null),
        Err("tools[\"my-read\"] expects an argument object; pass {} if it takes none".into())
    );
    assert_eq!(
        normalize_arguments(&required, json!({"path": "a"})),
        Ok(json!({"path": "a"}))
    );
}

use serde_json::json;

fn run() -> Arc<Run> {
    let mut registry = ToolRegistry::new();
    registry
        .register(Tool::new("t", "", json!({}), |_, _| async {
            ToolResult::text("ran")
        }))
        .unwrap();
    Arc::new(Run::new(registry, "call_1"))
}

#[tokio::test]
async fn a_call_after_the_run_closed_is_not_dispatched() {
    let run = run();
    assert_eq!(run.call("t", json!({})).await, Ok(json!("ran")));
    run.close(RUN_SETTLED);
    assert_eq!(run.call("t", json!({})).await, Err(NOT_DISPATCHED.into()));
    assert_eq!(run.signal.reason().as_deref(), Some(RUN_SETTLED));
    run.drained().await;
}

#[tokio::test]
async fn a_queued_call_is_abandoned_when_the_run_closes() {
    let run = run();
    let held = run.turn(false).await.unwrap();
    let queued = tokio::spawn({
        let run = Arc::clone(&run);
        async move { run.call("t", json!({})).await }
    });
    // Wait until the queued call is counted, then end the run.
    while run.state().in_progress == 0 {
        tokio::task::yield_now().await;
    }
    run.close(RUN_SETTLED);
    run.drained().await;
    assert_eq!(queued.await.unwrap(), Err(ABANDONED.into()));
    drop(held);
    assert_eq!(run.state().dispatched, 0);
}
