//! The run_code bridge: dispatch, events, the call queue, hooks, arguments.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use coderun_code_mode::{
    DispatchEvent, HookDecision, MAX_SUMMARY_BYTES, Tool, ToolCall, ToolResult,
};
use serde_json::{Value, json};
use tokio::sync::Barrier;
use tokio::time::Instant;

use crate::{PARENT, code_registry, echo_tool, open_schema, returned, run_code, text_tool};

/// When each call of a tool entered and left its handler.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<Vec<(String, Instant, Instant)>>>);

impl Spans {
    /// A tool that records its span and stays in its handler a while, so
    /// that calls allowed to overlap do.
    fn tool(&self, name: &str, concurrency_safe: bool) -> Tool {
        let spans = self.clone();
        let label = name.to_owned();
        Tool::new(name, "Takes a while.", open_schema(), move |_, _| {
            let spans = spans.clone();
            let label = label.clone();
            async move {
                let enter = Instant::now();
                tokio::time::sleep(Duration::from_millis(30)).await;
                spans
                    .0
                    .lock()
                    .expect("not poisoned")
                    .push((label, enter, Instant::now()));
                ToolResult::text("done")
            }
        })
        .concurrency_safe(concurrency_safe)
    }

    /// The spans, by entry time.
    fn sorted(&self) -> Vec<(String, Instant, Instant)> {
        let mut spans = self.0.lock().expect("not poisoned").clone();
        spans.sort_by_key(|span| span.1);
        spans
    }
}

fn counting_tool(name: &str, calls: Arc<AtomicUsize>) -> Tool {
    Tool::new(name, "Counts its calls.", open_schema(), move |_, _| {
        calls.fetch_add(1, Ordering::SeqCst);
        async { ToolResult::text("called") }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_calls_record_two_events_with_numbered_sub_call_ids() {
    let seen = Arc::default();
    let (registry, events) = code_registry([echo_tool("echo", seen)]);
    let program = "await tools.echo({ step: 1 });\nawait tools.echo({ step: 2 });\nreturn 'ok';";
    let result = run_code(&registry, program).await;
    assert_eq!(returned(&result), json!("ok"));
    assert_eq!(
        events.take(),
        [1, 2]
            .map(|n| DispatchEvent {
                parent_call_id: PARENT.into(),
                sub_call_id: format!("{PARENT}:code:{n}"),
                name: "echo".into(),
                arguments: json!({ "step": n }),
                is_error: false,
                result_summary: format!("{{\"step\":{n}}}"),
            })
            .to_vec()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn promise_all_of_tools_not_safe_to_overlap_runs_them_one_at_a_time() {
    let spans = Spans::default();
    let (registry, events) = code_registry([
        spans.tool("a", false),
        spans.tool("b", false),
        spans.tool("c", false),
    ]);
    let program = "return await Promise.all([tools.a(), tools.b(), tools.c()]);";
    let result = run_code(&registry, program).await;
    assert_eq!(returned(&result), json!(["done", "done", "done"]));
    let spans = spans.sorted();
    assert_eq!(spans.len(), 3);
    for pair in spans.windows(2) {
        assert!(
            pair[1].1 >= pair[0].2,
            "{} entered before {} left",
            pair[1].0,
            pair[0].0
        );
    }
    assert_eq!(events.take().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrency_safe_tools_overlap() {
    let barrier = Arc::new(Barrier::new(3));
    let spans: Arc<Mutex<Vec<(Instant, Instant)>>> = Arc::default();
    let tools = ["a", "b", "c"].map(|name| {
        let barrier = Arc::clone(&barrier);
        let spans = Arc::clone(&spans);
        Tool::new(name, "Waits for the others.", open_schema(), move |_, _| {
            let barrier = Arc::clone(&barrier);
            let spans = Arc::clone(&spans);
            async move {
                let enter = Instant::now();
                // Serialised calls would never all arrive; the guard ends the wait.
                let _ = tokio::time::timeout(Duration::from_secs(10), barrier.wait()).await;
                spans.lock().unwrap().push((enter, Instant::now()));
                ToolResult::text("met")
            }
        })
        .concurrency_safe(true)
    });
    let (registry, _) = code_registry(tools);
    let program = "return await Promise.all([tools.a(), tools.b(), tools.c()]);";
    let result = run_code(&registry, program).await;
    assert_eq!(returned(&result), json!(["met", "met", "met"]));
    let spans = spans.lock().unwrap().clone();
    assert_eq!(spans.len(), 3);
    let last_enter = spans.iter().map(|s| s.0).max().unwrap();
    let first_exit = spans.iter().map(|s| s.1).min().unwrap();
    assert!(
        last_enter <= first_exit,
        "a call left before all had entered"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_not_safe_to_overlap_runs_alone_between_safe_ones() {
    let spans = Spans::default();
    let (registry, _) = code_registry([
        spans.tool("safe1", true),
        spans.tool("safe2", true),
        spans.tool("alone", false),
    ]);
    let program =
        "await Promise.all([tools.safe1(), tools.alone(), tools.safe2(), tools.safe1()]);";
    let result = run_code(&registry, program).await;
    assert!(!result.is_error, "{}", result.text_content());
    let spans = spans.sorted();
    assert_eq!(spans.len(), 4);
    let (_, alone_enter, alone_exit) = spans.iter().find(|s| s.0 == "alone").unwrap().clone();
    for (name, enter, exit) in spans.iter().filter(|s| s.0 != "alone") {
        assert!(
            *exit <= alone_enter || *enter >= alone_exit,
            "{name} overlapped the unsafe call"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_tool_rejects_with_a_catchable_error_carrying_its_text() {
    let failing = Tool::new("explode", "Always fails.", open_schema(), |_, _| async {
        ToolResult::error("the disk is on fire")
    });
    let (registry, events) = code_registry([failing]);
    let program = "try {\n  await tools.explode({});\n  return 'no error';\n} catch (e) {\n  \
                   return [e instanceof Error, e.message];\n}";
    let result = run_code(&registry, program).await;
    assert_eq!(returned(&result), json!([true, "the disk is on fire"]));
    let events = events.take();
    assert_eq!(events.len(), 1);
    assert!(events[0].is_error);
    assert_eq!(events[0].result_summary, "the disk is on fire");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_execute_denial_rejects_with_the_reason_and_skips_the_handler() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (mut registry, events) = code_registry([
        counting_tool("rm", Arc::clone(&calls)),
        text_tool("ls", "a.txt"),
    ]);
    let seen_ids: Arc<Mutex<Vec<String>>> = Arc::default();
    let ids = Arc::clone(&seen_ids);
    registry.on_pre_execute(move |call: &ToolCall| {
        ids.lock().unwrap().push(call.id.clone());
        let deny = call.name == "rm";
        async move {
            if deny {
                HookDecision::deny("deleting is not allowed in this session")
            } else {
                HookDecision::Allow
            }
        }
    });
    let program = "const files = await tools.ls();\ntry {\n  await tools.rm({});\n} catch (e) \
                   {\n  return [files, e.message];\n}";
    let result = run_code(&registry, program).await;
    let value = returned(&result);
    assert_eq!(value[0], "a.txt");
    let message = value[1].as_str().unwrap();
    assert!(
        message.contains("deleting is not allowed in this session"),
        "{message}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0, "the handler ran");
    // The hooks saw the program's calls, and run_code's own call first.
    assert_eq!(
        *seen_ids.lock().unwrap(),
        [
            PARENT.to_owned(),
            format!("{PARENT}:code:1"),
            format!("{PARENT}:code:2")
        ]
    );
    let events = events.take();
    assert_eq!(events.len(), 2);
    assert!(events[1].is_error);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_execute_hooks_can_replace_what_the_program_gets() {
    let (mut registry, events) = code_registry([text_tool("secret", "hunter2")]);
    registry.on_post_execute(|call: &ToolCall, result: ToolResult| {
        let redact = call.name == "secret";
        async move {
            if redact {
                ToolResult::text("[redacted]")
            } else {
                result
            }
        }
    });
    let result = run_code(&registry, "return await tools.secret();").await;
    assert_eq!(returned(&result), json!("[redacted]"));
    assert_eq!(events.take()[0].result_summary, "[redacted]");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bigint_argument_rejects_that_call_and_dispatches_nothing() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (registry, events) = code_registry([counting_tool("count", Arc::clone(&calls))]);
    let program = "try {\n  await tools.count({ n: 10n });\n  return 'dispatched';\n} catch (e) \
                   {\n  return e.message;\n}";
    let result = run_code(&registry, program).await;
    let message = returned(&result);
    assert!(message.as_str().unwrap().contains("BigInt"), "{message}");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert!(events.take().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cyclic_argument_rejects_that_call_and_dispatches_nothing() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (registry, events) = code_registry([counting_tool("count", Arc::clone(&calls))]);
    let program = "const a: any = {};\na.self = a;\ntry {\n  await tools.count(a);\n} catch (e) \
                   {\n  return e.message;\n}";
    let result = run_code(&registry, program).await;
    assert!(returned(&result).is_string());
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert!(events.take().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_date_argument_arrives_as_its_iso_string() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (registry, events) = code_registry([echo_tool("echo", Arc::clone(&seen))]);
    let result = run_code(&registry, "await tools.echo({ when: new Date(0) });").await;
    assert!(!result.is_error, "{}", result.text_content());
    let expected = json!({"when": "1970-01-01T00:00:00.000Z"});
    assert_eq!(*seen.lock().unwrap(), std::slice::from_ref(&expected));
    assert_eq!(events.take()[0].arguments, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_mutating_its_arguments_does_not_change_the_logged_event() {
    let mutating = Tool::new(
        "grab",
        "Changes its arguments.",
        open_schema(),
        |mut args, _| async move {
            args["path"] = json!("/etc/shadow");
            args["extra"] = json!(true);
            ToolResult::text(args.to_string())
        },
    );
    let (registry, events) = code_registry([mutating]);
    let result = run_code(&registry, "return await tools.grab({ path: 'notes.txt' });").await;
    assert_eq!(
        returned(&result),
        json!(r#"{"path":"/etc/shadow","extra":true}"#)
    );
    assert_eq!(events.take()[0].arguments, json!({"path": "notes.txt"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_named_proto_is_callable() {
    let (registry, events) = code_registry([
        text_tool("__proto__", "proto works"),
        text_tool("constructor", "ctor"),
    ]);
    let program = "return [await tools.__proto__({}), await tools.constructor({}), \
         await tools.toString().catch((e) => e.message)];";
    let result = run_code(&registry, program).await;
    // A name no tool has is not inherited from Object.prototype: calling it
    // rejects as an unknown tool.
    assert_eq!(
        returned(&result),
        json!(["proto works", "ctor", "tools.toString is not a tool"])
    );
    assert_eq!(events.take()[0].name, "__proto__");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_with_an_output_schema_resolves_with_its_structured_value() {
    let stats = Tool::new("stats", "Counts things.", open_schema(), |_, _| async {
        ToolResult::json(json!({"files": 3, "names": ["a", "b", "c"]}))
    })
    .output_schema(json!({
        "type": "object",
        "properties": {"files": {"type": "number"}, "names": {"type": "array", "items": {"type": "string"}}},
        "required": ["files", "names"]
    }));
    let untyped = Tool::new(
        "raw",
        "Has no output schema.",
        open_schema(),
        |_, _| async { ToolResult::text("plain").with_structured(json!({"ignored": true})) },
    );
    let (registry, _) = code_registry([stats, untyped]);
    let program = "const s = await tools.stats();\nreturn [s.files + 1, s.names.join(''), await tools.raw()];";
    let result = run_code(&registry, program).await;
    assert_eq!(returned(&result), json!([4, "abc", "plain"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_argument_is_an_empty_object_for_an_optional_parameter() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (registry, events) = code_registry([echo_tool("list", Arc::clone(&seen))]);
    let result = run_code(
        &registry,
        "await tools.list();\nawait tools.list(undefined);",
    )
    .await;
    assert!(!result.is_error, "{}", result.text_content());
    assert_eq!(*seen.lock().unwrap(), [json!({}), json!({})]);
    let logged: Vec<Value> = events.take().into_iter().map(|e| e.arguments).collect();
    assert_eq!(logged, [json!({}), json!({})]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_argument_is_refused_for_a_required_parameter() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let read = Tool::new(
        "read",
        "Reads a file.",
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            async { ToolResult::text("contents") }
        },
    );
    let (registry, events) = code_registry([read]);
    let program = "try {\n  await tools.read();\n} catch (e) {\n  return e.message;\n}";
    let result = run_code(&registry, program).await;
    assert_eq!(
        returned(&result),
        json!("tools.read expects an argument object; pass {} if it takes none")
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert!(events.take().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_results_are_summarised_in_events() {
    let long = Tool::new("long", "Returns a lot.", open_schema(), |_, _| async {
        ToolResult::text("x".repeat(1000))
    });
    let (registry, events) = code_registry([long]);
    let result = run_code(&registry, "return (await tools.long()).length;").await;
    assert_eq!(returned(&result), json!(1000));
    let summary = &events.take()[0].result_summary;
    let kept = MAX_SUMMARY_BYTES - "…".len();
    assert_eq!(summary, &format!("{}…", "x".repeat(kept)));
}

/// The `tools` global is the registry's tools as they are when the run
/// starts (its names are kept between runs, and made again after a
/// change), beside the discovery functions.
#[tokio::test]
async fn the_tools_global_follows_the_registry_as_it_changes() {
    let (registry, _) = code_registry([text_tool("alpha", "a")]);
    let program = "return { names: Object.keys(tools), alpha: await tools.alpha({}), \
                   described: (await tools.$describe('alpha')).name, \
                   found: (await tools.$search('alpha')).map((hit) => hit.name) };";
    let before = returned(&run_code(&registry, program).await);
    assert_eq!(before["names"], json!(["$describe", "$search", "alpha"]));
    assert_eq!(before["alpha"], "a");
    assert_eq!(before["described"], "alpha");
    assert_eq!(before["found"], json!(["alpha"]));
    let mut changed = registry.clone();
    changed
        .register(text_tool("beta", "b"))
        .expect("a new name");
    let program = "return { names: Object.keys(tools), beta: await tools.beta({}), \
                   found: (await tools.$search('beta')).map((hit) => hit.name) };";
    let after = returned(&run_code(&changed, program).await);
    assert_eq!(
        after["names"],
        json!(["$describe", "$search", "alpha", "beta"])
    );
    assert_eq!(after["beta"], "b");
    assert_eq!(after["found"], json!(["beta"]));
    // The registry it was cloned from is as it was.
    let program = "return Object.keys(tools);";
    assert_eq!(
        returned(&run_code(&registry, program).await),
        json!(["$describe", "$search", "alpha"])
    );
}
