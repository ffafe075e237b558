//! Durable runs: deterministic mode, records and their replay, interrupt
//! and resume — the replays and resumes in separate processes, as users
//! run them.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use coderun_runtime::{
    BindingError, CodeBindingNamespace, CodeRunRequest, CodeRunResult, CodeRuntime, Continuation,
    DurableError, FailureKind, MisuseError, RunRecord, SigningKey,
};
use serde_json::{Value, json};

use crate::{assert_failure, assert_ok, run_request, runtime_with, shared};

/// A program that reads every source of nondeterminism a program has.
const NONDETERMINISTIC: &str = "
    const start = Date.now();
    const stamp = new Date().toISOString();
    const perf = performance.now();
    const randoms = [Math.random(), Math.random()];
    const uuid = crypto.randomUUID();
    const bytes = Array.from(crypto.getRandomValues(new Uint8Array(8)));
    const local = new Date().toLocaleString('en-US', { timeZone: 'America/New_York', timeZoneName: 'short' });
    await new Promise((r) => setTimeout(r, 1500));
    const order = [];
    await Promise.all([3, 1, 2].map(async (n) => { await tools.slow({ n }); order.push(n); }));
    console.log('after', Date.now() - start, 'ms');
    return { start, stamp, local, perf, randoms, uuid, bytes, order, elapsed: Date.now() - start };
";

/// `tools.slow({n})` settles after `n` × a random few milliseconds, so
/// concurrent calls settle in a different order from run to run.
fn slow_tools() -> CodeBindingNamespace {
    CodeBindingNamespace::new("tools").function("slow", |args| async move {
        let n = args["n"].as_u64().unwrap_or(1);
        let jitter = u64::from(std::process::id() % 3)
            + (std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::from(d.subsec_nanos() % 7)));
        tokio::time::sleep(Duration::from_millis(n * (2 + jitter))).await;
        Ok(json!(n))
    })
}

const EPOCH_MS: u64 = 1_750_000_000_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deterministic_runs_are_identical_and_the_seed_decides_the_randomness() {
    let run = |seed| {
        run_request(
            CodeRunRequest::new(NONDETERMINISTIC)
                .binding(slow_tools())
                .deterministic(seed, EPOCH_MS),
        )
    };
    let first = run(7).await;
    assert_ok(&first);
    let value = first.value.clone().expect("a value");
    assert_eq!(value["start"], json!(EPOCH_MS));
    assert_eq!(value["stamp"], json!("2025-06-15T15:06:40.000Z"));
    assert_eq!(value["local"], json!("6/15/2025, 11:06:40 AM EDT"));
    assert_eq!(
        value["order"],
        json!([3, 1, 2]),
        "start order on a virtual clock"
    );
    assert!(value["elapsed"].as_u64().is_some_and(|ms| ms >= 1500));
    for _ in 0..99 {
        let again = run(7).await;
        assert_eq!(again.value, first.value);
        assert_eq!(again.logs, first.logs);
        assert_eq!(again.error, first.error);
        assert_eq!(again.fuel_consumed, first.fuel_consumed);
    }
    let other = run(8).await.value.expect("a value");
    for key in ["randoms", "uuid", "bytes"] {
        assert_ne!(other[key], value[key], "{key} did not change with the seed");
    }
    assert_eq!(other["start"], value["start"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_virtual_clock_never_waits_for_timers() {
    let runtime = runtime_with(|c| {
        c.wall_clock(Duration::from_secs(5));
    });
    let result = runtime
        .run(
            CodeRunRequest::new(
                "for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 3_600_000));
                 return Date.now();",
            )
            .deterministic(1, 0),
        )
        .await
        .expect("no misuse");
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(36_000_000)));
}

/// `tools.step({i})` returns `i * i`, counting its calls.
fn counted_tools(calls: Arc<AtomicUsize>) -> CodeBindingNamespace {
    CodeBindingNamespace::new("tools").function("step", move |args| {
        calls.fetch_add(1, Ordering::SeqCst);
        async move {
            let i = args["i"].as_i64().unwrap_or(0);
            Ok(json!(i * i))
        }
    })
}

const TWENTY_CALLS: &str = "
    let total = 0;
    for (let i = 0; i < 20; i++) {
      total += await tools.step({ i });
      if (i % 5 === 0) console.log('step', i, Math.random() < 2);
    }
    return { total, when: Date.now() };
";

/// Runs this test binary's test `name` in a child process with `env`, and
/// returns what it printed after `RESULT ` on the last line that has it.
fn in_child(name: &str, env: &[(&str, String)]) -> Value {
    let output = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            name,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("the child runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = stdout
        .lines()
        .rev()
        .find_map(|line| line.split_once("RESULT ").map(|(_, result)| result))
        .unwrap_or_else(|| panic!("the child printed no result:\n{stdout}"));
    serde_json::from_str(line).expect("the child's result is JSON")
}

fn temp_file(name: &str, contents: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("durable");
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let path = dir.join(format!("{name}-{}.json", std::process::id()));
    std::fs::write(&path, contents).expect("written");
    path
}

fn summary(result: &CodeRunResult) -> Value {
    json!({
        "value": result.value,
        "logs": result.logs.iter().map(|l| l.text.clone()).collect::<Vec<_>>(),
        "error": result.error.as_ref().map(|e| json!({"kind": e.kind.as_str(), "message": e.message})),
        "fuel": result.fuel_consumed,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_replays_in_another_process_without_bindings() {
    let calls = Arc::new(AtomicUsize::new(0));
    let result = run_request(
        CodeRunRequest::new(TWENTY_CALLS)
            .binding(counted_tools(calls.clone()))
            .record(true),
    )
    .await;
    assert_ok(&result);
    assert_eq!(calls.load(Ordering::SeqCst), 20);
    let record = result.record.as_deref().expect("a record");
    assert_eq!(record.calls.len(), 20);
    let path = temp_file("record", &serde_json::to_string(record).expect("JSON"));
    let replayed = in_child(
        "durable::child_replays_a_record",
        &[("CODERUN_TEST_RECORD", path.display().to_string())],
    );
    let original = summary(&result);
    // The real clock moved on: `when` differs, and everything else agrees.
    assert_eq!(replayed["value"]["total"], original["value"]["total"]);
    assert_eq!(replayed["logs"], original["logs"]);
    assert_eq!(replayed["error"], Value::Null);

    // The same program on a virtual clock replays to the byte.
    let deterministic = run_request(
        CodeRunRequest::new(TWENTY_CALLS)
            .binding(counted_tools(calls.clone()))
            .deterministic(3, EPOCH_MS)
            .record(true),
    )
    .await;
    let path = temp_file(
        "record-deterministic",
        &serde_json::to_string(deterministic.record.as_deref().expect("a record")).expect("JSON"),
    );
    let replayed = in_child(
        "durable::child_replays_a_record",
        &[("CODERUN_TEST_RECORD", path.display().to_string())],
    );
    assert_eq!(replayed, summary(&deterministic));
}

#[tokio::test]
#[ignore = "run by a_record_replays_in_another_process_without_bindings in a child process"]
async fn child_replays_a_record() {
    let path = std::env::var("CODERUN_TEST_RECORD").expect("the parent sets it");
    let text = std::fs::read_to_string(path).expect("the record");
    let record = RunRecord::from_json(&text).expect("a readable record");
    let result = shared()
        .run(CodeRunRequest::replay(record))
        .await
        .expect("no misuse");
    println!("RESULT {}", summary(&result));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_of_an_edited_program_names_the_step_that_diverged() {
    let calls = Arc::new(AtomicUsize::new(0));
    let result = run_request(
        CodeRunRequest::new(TWENTY_CALLS)
            .binding(counted_tools(calls.clone()))
            .record(true),
    )
    .await;
    let record = *result.record.expect("a record");
    let mut request = CodeRunRequest::replay(record.clone());
    request.program =
        TWENTY_CALLS.replace("tools.step({ i })", "tools.step({ i: i === 7 ? 70 : i })");
    let replayed = run_request(request).await;
    assert_failure(&replayed, FailureKind::Diverged, "at call 8");
    assert_failure(&replayed, FailureKind::Diverged, "{\"i\":70}");
    // The host names the binding as the program writes it (no label
    // crossed into the guest for an identifier's name).
    assert_failure(&replayed, FailureKind::Diverged, "called tools.step with");
    assert_eq!(
        calls.load(Ordering::SeqCst),
        20,
        "a replay calls no binding"
    );

    // The program edited inside the record, its hash left as it was: the
    // replay refuses to run it as if it were the recorded program.
    let mut edited = record.clone();
    edited.program = TWENTY_CALLS.replace("i < 20", "i < 19");
    let refused = shared().run(CodeRunRequest::replay(edited)).await;
    assert!(
        matches!(
            refused,
            Err(MisuseError::Durable(DurableError::RecordEdited))
        ),
        "{refused:?}"
    );

    let mut shorter = CodeRunRequest::replay(record.clone());
    shorter.program = TWENTY_CALLS.replace("i < 20", "i < 19");
    assert_failure(
        &run_request(shorter).await,
        FailureKind::Diverged,
        "record has 20",
    );
    let mut longer = CodeRunRequest::replay(record);
    longer.program = TWENTY_CALLS.replace("i < 20", "i < 21");
    assert_failure(
        &run_request(longer).await,
        FailureKind::Diverged,
        "only 20 call(s)",
    );
}

/// The approval scenario's tools, counting their calls.
#[derive(Clone, Default)]
struct FileTools {
    listed: Arc<AtomicUsize>,
    deleted: Arc<AtomicUsize>,
    asked: Arc<AtomicUsize>,
}

impl FileTools {
    fn namespace(&self) -> CodeBindingNamespace {
        let (listed, deleted, asked) = (
            self.listed.clone(),
            self.deleted.clone(),
            self.asked.clone(),
        );
        CodeBindingNamespace::new("tools")
            .function("list_files", move |_| {
                listed.fetch_add(1, Ordering::SeqCst);
                async { Ok(json!(["a.tmp", "keep.txt", "b.tmp", "notes.md", "c.tmp"])) }
            })
            .function("approve", move |args| {
                asked.fetch_add(1, Ordering::SeqCst);
                async move { Err(BindingError::interrupt(json!({ "approval needed": args }))) }
            })
            .function("delete_file", move |args| {
                deleted.fetch_add(1, Ordering::SeqCst);
                async move { Ok(json!({ "deleted": args["path"] })) }
            })
    }

    fn counts(&self) -> Value {
        json!({
            "listed": self.listed.load(Ordering::SeqCst),
            "asked": self.asked.load(Ordering::SeqCst),
            "deleted": self.deleted.load(Ordering::SeqCst),
        })
    }
}

const CLEANUP: &str = "
    const files: string[] = await tools.list_files({});
    const doomed = files.filter((f) => f.endsWith('.tmp'));
    try {
      await tools.approve({ action: 'delete', files: doomed });
    } catch (e) {
      return { deleted: 0, refused: (e as Error).message };
    }
    for (const path of doomed) await tools.delete_file({ path });
    return { deleted: doomed.length, kept: files.length - doomed.length };
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_run_resumes_in_another_process_without_calling_again() {
    let tools = FileTools::default();
    let result = run_request(
        CodeRunRequest::new(CLEANUP)
            .binding(tools.namespace())
            .record(true),
    )
    .await;
    let interrupted = result.interrupted.as_deref().expect("interrupted");
    assert!(result.error.is_none() && result.value.is_none());
    assert_eq!(interrupted.call, "tools.approve");
    assert_eq!(interrupted.step, 2);
    assert_eq!(
        interrupted.payload,
        json!({"approval needed": {"action": "delete", "files": ["a.tmp", "b.tmp", "c.tmp"]}})
    );
    assert_eq!(
        tools.counts(),
        json!({"listed": 1, "asked": 1, "deleted": 0})
    );
    let path = temp_file(
        "continuation",
        &serde_json::to_string(&interrupted.continuation).expect("JSON"),
    );
    let path = path.display().to_string();

    let approved = in_child(
        "durable::child_resumes_a_continuation",
        &[
            ("CODERUN_TEST_CONTINUATION", path.clone()),
            ("CODERUN_TEST_ANSWER", "ok".into()),
        ],
    );
    assert_eq!(
        approved["counts"],
        json!({"listed": 0, "asked": 0, "deleted": 3})
    );
    assert_eq!(approved["value"], json!({"deleted": 3, "kept": 2}));

    let refused = in_child(
        "durable::child_resumes_a_continuation",
        &[
            ("CODERUN_TEST_CONTINUATION", path),
            ("CODERUN_TEST_ANSWER", "refuse".into()),
        ],
    );
    assert_eq!(
        refused["counts"],
        json!({"listed": 0, "asked": 0, "deleted": 0})
    );
    assert_eq!(
        refused["value"],
        json!({"deleted": 0, "refused": "the user said no"})
    );
}

#[tokio::test]
#[ignore = "run by an_interrupted_run_resumes_in_another_process_without_calling_again in a child process"]
async fn child_resumes_a_continuation() {
    let path = std::env::var("CODERUN_TEST_CONTINUATION").expect("the parent sets it");
    let continuation =
        Continuation::from_json(&std::fs::read_to_string(path).expect("the continuation"))
            .expect("a readable continuation");
    let answer = match std::env::var("CODERUN_TEST_ANSWER").as_deref() {
        Ok("ok") => Ok(json!("approved")),
        _ => Err("the user said no".to_owned()),
    };
    let tools = FileTools::default();
    let result = shared()
        .run(CodeRunRequest::resume(continuation, answer).binding(tools.namespace()))
        .await
        .expect("no misuse");
    println!(
        "RESULT {}",
        json!({"value": result.value, "error": result.error.map(|e| e.to_string()), "counts": tools.counts()})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signed_continuations_refuse_tampering_expiry_and_other_bindings() {
    let key = SigningKey::new(vec![7u8; 32]);
    let runtime = runtime_with(|c| {
        c.continuation_key(Some(key.clone()));
    });
    let tools = FileTools::default();
    let interrupt = || async {
        let result = runtime
            .run(
                CodeRunRequest::new(CLEANUP)
                    .binding(tools.namespace())
                    .record(true),
            )
            .await
            .expect("no misuse");
        result.interrupted.expect("interrupted").continuation
    };
    let continuation = interrupt().await;
    assert!(continuation.signature.is_some() && continuation.expires_at_ms.is_some());
    let resume = |continuation: Continuation, namespace: CodeBindingNamespace| {
        runtime.run(CodeRunRequest::resume(continuation, Ok(json!("approved"))).binding(namespace))
    };

    let resumed = resume(continuation.clone(), tools.namespace())
        .await
        .expect("valid");
    assert_eq!(resumed.value, Some(json!({"deleted": 3, "kept": 2})));

    let mut tampered = continuation.clone();
    tampered.record.calls[0].outcome = coderun_runtime::CallOutcome::Ok(json!(["important.tmp"]));
    let refused = resume(tampered, tools.namespace()).await;
    assert!(
        matches!(
            refused,
            Err(MisuseError::Durable(DurableError::BadSignature(_)))
        ),
        "{refused:?}"
    );

    let mut unsigned = continuation.clone();
    unsigned.signature = None;
    assert!(matches!(
        resume(unsigned, tools.namespace()).await,
        Err(MisuseError::Durable(DurableError::BadSignature("missing")))
    ));

    let mismatched = resume(continuation.clone(), CodeBindingNamespace::new("tools")).await;
    let message = mismatched.expect_err("other bindings").to_string();
    assert!(
        message.contains("tools.{approve, delete_file, list_files}"),
        "{message}"
    );

    let short_lived = runtime_with(|c| {
        c.continuation_key(Some(key.clone()))
            .continuation_ttl(Duration::from_millis(1));
    });
    let expiring = short_lived
        .run(
            CodeRunRequest::new(CLEANUP)
                .binding(tools.namespace())
                .record(true),
        )
        .await
        .expect("no misuse")
        .interrupted
        .expect("interrupted")
        .continuation;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let expired = short_lived
        .run(CodeRunRequest::resume(expiring, Ok(json!("approved"))).binding(tools.namespace()))
        .await;
    assert!(
        matches!(
            expired,
            Err(MisuseError::Durable(DurableError::Expired { .. }))
        ),
        "{expired:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_in_a_run_that_does_not_record_rejects_the_call() {
    let tools = FileTools::default();
    let result = run_request(CodeRunRequest::new(CLEANUP).binding(tools.namespace())).await;
    assert_ok(&result);
    let refused = result.value.expect("a value")["refused"]
        .as_str()
        .map(str::to_owned);
    assert!(
        refused
            .as_deref()
            .is_some_and(|m| m.contains("cannot be resumed")),
        "{refused:?}"
    );
    assert!(result.interrupted.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_records_are_refused_with_the_reason() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(
        RunRecord::from_json(&deep),
        Err(DurableError::Unreadable { .. })
    ));
    assert!(RunRecord::from_json("{\"format\": 1}").is_err());
    let calls = Arc::new(AtomicUsize::new(0));
    let result = run_request(
        CodeRunRequest::new(TWENTY_CALLS)
            .binding(counted_tools(calls))
            .record(true),
    )
    .await;
    let mut record = *result.record.expect("a record");
    record.guest_sha256 = "0".repeat(64);
    let refused = shared().run(CodeRunRequest::replay(record)).await;
    assert!(
        matches!(
            refused,
            Err(MisuseError::Durable(DurableError::GuestMismatch { .. }))
        ),
        "{refused:?}"
    );
}

/// Calls a binding answers at once are handed to the program with their
/// start; the record keeps them as delivered, and its replay (which hands
/// every call over from `wait-settled`) sees the same order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_of_calls_answered_at_once_replays_in_the_same_order() {
    let host = CodeBindingNamespace::new("tools")
        .function("now", |args| async move { Ok(args) })
        .function("fail", |_| async move { Err("nope".into()) })
        .function("later", |args| async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            Ok(args)
        });
    let program = r#"
        const order = [];
        const note = (p) => p.then((v) => order.push(v), (e) => order.push(e.message));
        const ticks = Promise.resolve().then(() => order.push('tick')).then(() => order.push('tock'));
        await Promise.all([note(tools.later('later')), note(tools.now('now')), note(tools.fail()), ticks]);
        let total = 0;
        for (let i = 0; i < 10; i++) total += await (i % 3 ? tools.now(i) : tools.later(i));
        order.push(total);
        return order;
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(host).record(true)).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!(["tick", "tock", "now", "nope", "later", 45]))
    );
    let record = result.record.expect("a record");
    assert!(
        record.calls.iter().all(|call| call.delivered.is_some()),
        "every call is recorded as delivered: {:?}",
        record.calls
    );
    let replayed = run_request(CodeRunRequest::replay(*record)).await;
    assert_ok(&replayed);
    assert_eq!(replayed.value, result.value);
}
