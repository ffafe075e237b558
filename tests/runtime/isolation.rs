//! Nothing survives a run.

use std::collections::HashSet;

use super::*;
use serde_json::json;

#[tokio::test]
async fn globals_and_prototypes_do_not_leak_between_runs() {
    let runtime = runtime_with(|_| {});
    let first = runtime
        .run(CodeRunRequest::new(
            "globalThis.leak = 1; Array.prototype.push = function () { return -1 }; return [].push(1)",
        ))
        .await
        .unwrap();
    assert_ok(&first);
    assert_eq!(first.value, Some(json!(-1)));
    let second = runtime
        .run(CodeRunRequest::new(
            "const a = []; a.push(5); return [typeof globalThis.leak, a]",
        ))
        .await
        .unwrap();
    assert_ok(&second);
    assert_eq!(second.value, Some(json!(["undefined", [5]])));
}

#[tokio::test]
async fn math_random_differs_between_runs() {
    let mut seen = HashSet::new();
    for _ in 0..100 {
        let result = run("return Math.random()").await;
        assert_ok(&result);
        let x = result.value.unwrap().as_f64().unwrap();
        assert!((0.0..1.0).contains(&x));
        seen.insert(x.to_bits());
    }
    assert_eq!(seen.len(), 100);
}

#[tokio::test]
async fn a_repeated_program_starts_as_fresh_as_its_first_run() {
    let runtime = runtime_with(|_| {});
    // The second and third runs reuse the first run's transformed script.
    let program = "type N = number;\nglobalThis.n = ((globalThis.n as N) ?? 0) + 1;\n\
                   console.log('n', globalThis.n);\nthrow new Error('n=' + globalThis.n);";
    let mut fuel = Vec::new();
    for _ in 0..3 {
        let result = runtime.run(CodeRunRequest::new(program)).await.unwrap();
        assert_failure(&result, FailureKind::Exception, "Error: n=1");
        assert_failure(&result, FailureKind::Exception, "program.ts:4:");
        assert_eq!(result.logs, vec!["n 1"]);
        fuel.push(result.fuel_consumed);
    }
    assert_eq!(fuel[0], fuel[1]);
    assert_eq!(fuel[1], fuel[2]);
}
