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
