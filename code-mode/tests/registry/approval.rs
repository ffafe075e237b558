//! Approvals: a pre-execute hook pauses a program at a call, `resume`
//! goes on with the answer, and the calls before it are not dispatched
//! again.

use std::sync::atomic::{AtomicUsize, Ordering};

use coderun_code_mode::{Approval, HookDecision, PAUSED};

use super::*;

/// Counts the calls of each tool the host actually ran.
#[derive(Default)]
struct Counts {
    list: AtomicUsize,
    delete: AtomicUsize,
}

/// `list_files` returns three files; `delete_file` deletes one (counted);
/// a hook asks approval for every `delete_file`.
fn file_registry() -> (ToolRegistry, Arc<Counts>) {
    let counts = Arc::new(Counts::default());
    let listed = Arc::clone(&counts);
    let deleted = Arc::clone(&counts);
    let (mut registry, _events) = code_registry([
        Tool::new(
            "list_files",
            "Lists the files.",
            open_schema(),
            move |_, _| {
                listed.list.fetch_add(1, Ordering::SeqCst);
                async { ToolResult::json(json!(["a.txt", "b.txt", "c.txt"])) }
            },
        )
        .output_schema(json!({"type": "array", "items": {"type": "string"}})),
        Tool::new(
            "delete_file",
            "Deletes a file.",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            move |args, _| {
                deleted.delete.fetch_add(1, Ordering::SeqCst);
                async move {
                    ToolResult::text(format!("deleted {}", args["path"].as_str().unwrap_or("?")))
                }
            },
        ),
    ]);
    registry.on_pre_execute(|call: &ToolCall| {
        let decision = if call.name == "delete_file" {
            HookDecision::needs_approval(json!({"delete": call.arguments["path"]}))
        } else {
            HookDecision::Allow
        };
        async move { decision }
    });
    (registry, counts)
}

const CLEANUP: &str = r#"
const files = await tools.list_files();
console.log(`found ${files.length}`);
const done: string[] = [];
for (const path of files) {
  try {
    done.push(await tools.delete_file({ path }));
  } catch (e) {
    done.push(`kept ${path}: ${(e as Error).message}`);
  }
}
return done;
"#;

/// The paused run's id, from run_code's structured result.
#[track_caller]
fn paused_id(result: &ToolResult) -> String {
    assert!(
        !result.is_error,
        "run_code failed: {}",
        result.text_content()
    );
    let structured = result.structured.as_ref().expect("a structured result");
    structured["paused"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("the run did not pause: {structured}"))
        .to_owned()
}

#[tokio::test]
async fn a_hook_pauses_the_program_and_approval_resumes_it_without_repeating_calls() {
    let (registry, counts) = file_registry();
    let first = run_code(&registry, CLEANUP).await;
    let mut id = paused_id(&first);
    let text = first.text_content();
    assert!(
        text.starts_with(&format!(
            "found 3\n{PAUSED}: tools.delete_file needs approval: "
        )),
        "{text}"
    );
    assert!(text.contains(r#"{"delete":"a.txt"}"#), "{text}");
    assert_eq!(
        first.structured.as_ref().unwrap()["paused"]["call"],
        "tools.delete_file"
    );
    assert_eq!(registry.paused_runs(), 1);
    assert_eq!(
        counts.delete.load(Ordering::SeqCst),
        0,
        "nothing is deleted before approval"
    );

    // Each delete asks in turn: approve all three.
    let mut result = first;
    for expected_deletes in 1..=3 {
        result = registry
            .resume(PARENT, &id, Approval::Approve, no_abort())
            .await;
        assert_eq!(counts.delete.load(Ordering::SeqCst), expected_deletes);
        if expected_deletes < 3 {
            id = paused_id(&result);
        }
    }
    assert_eq!(
        returned(&result),
        json!(["deleted a.txt", "deleted b.txt", "deleted c.txt"])
    );
    assert_eq!(
        counts.list.load(Ordering::SeqCst),
        1,
        "the listing ran once"
    );
    assert_eq!(registry.paused_runs(), 0);
    // A paused run resumes once.
    let again = registry
        .resume(PARENT, &id, Approval::Approve, no_abort())
        .await;
    assert!(again.is_error);
    assert!(
        again.text_content().contains("no paused run has the id"),
        "{}",
        again.text_content()
    );
}

#[tokio::test]
async fn a_rejection_reaches_the_programs_catch_path() {
    let (registry, counts) = file_registry();
    let mut result = run_code(&registry, CLEANUP).await;
    for _ in 0..3 {
        let id = paused_id(&result);
        result = registry
            .resume(
                PARENT,
                &id,
                Approval::Reject("the user said no".into()),
                no_abort(),
            )
            .await;
    }
    assert_eq!(
        returned(&result),
        json!([
            "kept a.txt: not approved: the user said no",
            "kept b.txt: not approved: the user said no",
            "kept c.txt: not approved: the user said no"
        ])
    );
    assert_eq!(counts.delete.load(Ordering::SeqCst), 0);
    assert_eq!(counts.list.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_continuation_taken_out_resumes_on_another_registry_with_the_same_tools() {
    let (registry, _) = file_registry();
    let id = paused_id(&run_code(&registry, CLEANUP).await);
    let continuation = registry.take_continuation(&id).expect("the run is paused");
    assert_eq!(registry.paused_runs(), 0);
    // As a database row would hold it.
    let stored = serde_json::to_string(&continuation).unwrap();
    let restored = coderun_code_mode::coderun_runtime::Continuation::from_json(&stored).unwrap();

    let (elsewhere, counts) = file_registry();
    let result = elsewhere
        .resume_continuation(PARENT, restored.clone(), Approval::Approve, no_abort())
        .await;
    paused_id(&result);
    assert_eq!(
        counts.list.load(Ordering::SeqCst),
        0,
        "the listing is not run again"
    );
    assert_eq!(counts.delete.load(Ordering::SeqCst), 1);

    // A registry whose tools differ refuses it.
    let (mut other, _) = code_registry([text_tool("list_files", "[]")]);
    other.on_pre_execute(|_: &ToolCall| async { HookDecision::Allow });
    let refused = other
        .resume_continuation(PARENT, restored, Approval::Approve, no_abort())
        .await;
    assert!(refused.is_error, "{}", refused.text_content());
    assert!(
        refused.text_content().contains("delete_file"),
        "{}",
        refused.text_content()
    );
}

#[tokio::test]
async fn a_denial_still_denies_an_approved_call() {
    let (mut registry, counts) = file_registry();
    registry.on_pre_execute(|call: &ToolCall| {
        let protected = call.arguments["path"] == "b.txt";
        async move {
            if protected {
                HookDecision::deny("b.txt is protected")
            } else {
                HookDecision::Allow
            }
        }
    });
    let mut result = run_code(&registry, CLEANUP).await;
    for _ in 0..3 {
        let id = paused_id(&result);
        result = registry
            .resume(PARENT, &id, Approval::Approve, no_abort())
            .await;
    }
    let value = returned(&result);
    assert_eq!(value[0], "deleted a.txt");
    assert!(
        value[1].as_str().unwrap().contains("b.txt is protected"),
        "{value}"
    );
    assert_eq!(value[2], "deleted c.txt");
    assert_eq!(counts.delete.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_direct_call_that_needs_approval_fails_with_the_payload() {
    let (mut registry, counts) = file_registry();
    registry.mode(Mode::Both);
    let call = ToolCall::new("c1", "delete_file", json!({"path": "a.txt"}));
    let result = registry.execute(call, no_abort()).await;
    assert!(result.is_error);
    assert!(
        result.text_content().contains("needs approval"),
        "{}",
        result.text_content()
    );
    assert_eq!(
        result.structured,
        Some(json!({"needs_approval": {"delete": "a.txt"}}))
    );
    assert_eq!(counts.delete.load(Ordering::SeqCst), 0);
}

/// A handler that needs the caller's input returns
/// `ToolResult::interrupt`: with `handlers_may_pause`, the program pauses
/// at the call with the payload, and approving dispatches the call again
/// (which now finds what it needed); without it, the program's call fails
/// with the result's text.
#[tokio::test]
async fn a_handler_pauses_the_program_when_allowed_and_runs_again_on_resume() {
    let asked = Arc::new(AtomicUsize::new(0));
    let tool = |asked: Arc<AtomicUsize>| {
        Tool::new("ask", "Asks the user.", open_schema(), move |_, _| {
            let round = asked.fetch_add(1, Ordering::SeqCst);
            async move {
                if round == 0 {
                    ToolResult::interrupt("ask needs an answer", json!({"question": "name?"}))
                } else {
                    ToolResult::text("ada")
                }
            }
        })
    };
    let program = "const name = await tools.ask({}); return `hello ${name}`;";

    let (mut registry, _events) = code_registry([tool(Arc::clone(&asked))]);
    registry.handlers_may_pause(true);
    let first = run_code(&registry, program).await;
    let id = paused_id(&first);
    assert_eq!(
        first.structured.as_ref().unwrap()["paused"]["payload"],
        json!({"question": "name?"})
    );
    let done = registry
        .resume(PARENT, &id, Approval::Approve, no_abort())
        .await;
    assert_eq!(returned(&done), json!("hello ada"));
    assert_eq!(
        asked.load(Ordering::SeqCst),
        2,
        "dispatched again on resume"
    );

    let (registry, _events) = code_registry([tool(Arc::new(AtomicUsize::new(0)))]);
    let refused = run_code(&registry, program).await;
    assert!(refused.is_error, "{}", refused.text_content());
    assert!(
        refused.text_content().contains("ask needs an answer"),
        "{}",
        refused.text_content()
    );
}
