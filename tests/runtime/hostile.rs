//! The hostile-program suite (`tests/hostile/mod.rs`) through the
//! library: every case ends with its exact outcome and within its output
//! caps, and the runtime runs programs afterwards.

#[path = "../hostile/mod.rs"]
mod cases;

use std::time::Duration;

use coderun_runtime::{
    CodeBindingNamespace, CodeRunRequest, CodeRunResult, CodeRuntime, FailureKind,
};
use futures::StreamExt as _;
use serde_json::{Value, json};

use self::cases::{Case, Kind, LIMITS, tools};
use super::runtime_with;

fn namespace() -> CodeBindingNamespace {
    CodeBindingNamespace::new("tools")
        .function("echo", |args| async move { Ok(args) })
        .function("fail", |_| async move {
            Err("e".repeat(tools::FAIL_MESSAGE_BYTES).into())
        })
        .function("big", |_| async move {
            Ok(Value::String("b".repeat(tools::BIG_RESULT_BYTES)))
        })
}

/// What is wrong with `result` for `case`, if anything.
fn mismatch(case: &Case, result: &CodeRunResult) -> Option<String> {
    let logs: usize = result.logs.iter().map(|line| line.text.len() + 1).sum();
    if logs > LIMITS.max_log_bytes {
        return Some(format!("{logs} bytes of logs, over the cap"));
    }
    let (kind, text) = match (&result.error, &result.value) {
        (Some(error), _) => {
            if error.message.len() > LIMITS.max_error_bytes {
                return Some(format!(
                    "an error of {} bytes, over the cap",
                    error.message.len()
                ));
            }
            let kind = match error.kind {
                FailureKind::Exception => Kind::Exception,
                FailureKind::Timeout => Kind::Timeout,
                FailureKind::WorkerExit => Kind::WorkerExit,
                other => return Some(format!("ended as {other}: {}", error.message)),
            };
            (kind, error.message.clone())
        }
        (None, value) => {
            let text = value.as_ref().map_or_else(String::new, Value::to_string);
            let value_bytes = match value {
                Some(Value::String(s)) => s.len(),
                _ => text.len(),
            };
            if value_bytes > LIMITS.max_value_bytes {
                return Some(format!("a value of {value_bytes} bytes, over the cap"));
            }
            (Kind::Ok, text)
        }
    };
    if kind != case.kind {
        return Some(format!(
            "ended as {kind:?} (expected {:?}): {}",
            case.kind,
            excerpt(&text)
        ));
    }
    if !text.contains(case.needle) {
        return Some(format!(
            "{kind:?} without {:?}: {}",
            case.needle,
            excerpt(&text)
        ));
    }
    None
}

fn excerpt(text: &str) -> String {
    text.chars().take(300).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_program_ends_as_expected_and_the_host_lives() {
    let runtime = runtime_with(|c| {
        c.fuel(LIMITS.fuel)
            .wall_clock(Duration::from_secs(LIMITS.wall_clock_secs))
            .max_memory_bytes(LIMITS.max_memory_mib * 1024 * 1024)
            .max_log_bytes(LIMITS.max_log_bytes)
            .max_value_bytes(LIMITS.max_value_bytes)
            .max_error_bytes(LIMITS.max_error_bytes);
    });
    let cases = cases::all();
    assert!(
        cases.len() >= 100,
        "the suite has only {} programs",
        cases.len()
    );
    let runtime = &runtime;
    let failures: Vec<String> = futures::stream::iter(cases.iter())
        .map(|case| async move {
            let request = CodeRunRequest::new(case.program.clone()).binding(namespace());
            let result = runtime.run(request).await.expect("no misuse");
            mismatch(case, &result).map(|why| format!("{}: {why}", case.name))
        })
        .buffer_unordered(2)
        .filter_map(|failure| async move { failure })
        .collect()
        .await;
    assert!(
        failures.is_empty(),
        "{} of {} cases went wrong:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let alive = runtime
        .run(CodeRunRequest::new("return 'alive'"))
        .await
        .unwrap();
    assert_eq!(alive.value, Some(json!("alive")));
}
