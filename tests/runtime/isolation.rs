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

/// What the snapshot holds is immortal in a run (its reference counts are
/// biased and left alone, and the collector does not walk it), so a run
/// may drop the last reference to a built-in, reshape the global object and
/// the prototypes, make garbage that points into them, and hold them
/// weakly, without freeing anything the snapshot still needs; the next run
/// starts from the snapshot as it was.
#[tokio::test]
async fn a_run_may_drop_and_reshape_the_snapshots_objects() {
    let runtime = runtime_with(|c| {
        c.max_memory_bytes(16 * 1024 * 1024);
    });
    let program = r#"
        const M = Map, proto = Array.prototype, max = Math.max;
        delete globalThis.Map; delete Array.prototype.map; delete Math.max;
        for (let i = 0; i < 2000; i++) globalThis['g' + i] = { i, proto, max };
        for (let i = 0; i < 2000; i += 2) delete globalThis['g' + i];
        Object.prototype.extra = 1; delete Object.prototype.extra;
        const weak = new WeakRef(proto), registry = new FinalizationRegistry(() => {});
        registry.register(M, 'map');
        let n = 0;
        for (let i = 0; i < 100000; i++) {
            const a = { s: 'x'.repeat(64) + i, proto, max, name: 'length' };
            const b = { a, f: Object.prototype.toString, p: Promise.prototype }; a.b = b;
            n += a.s.length;
        }
        const m = new M([[1, 'one']]);
        return [n, m.get(1), typeof globalThis.Map, [].map, max(1, 2), weak.deref() === proto,
                globalThis.g1999.i, 'g0' in globalThis, Object.keys(globalThis).length > 1000];
    "#;
    let first = runtime.run(CodeRunRequest::new(program)).await.unwrap();
    assert_ok(&first);
    assert_eq!(
        first.value,
        Some(json!([
            6888890,
            "one",
            "undefined",
            null,
            2,
            true,
            1999,
            false,
            true
        ]))
    );
    let second = runtime
        .run(CodeRunRequest::new(
            "return [typeof Map, [1].map(x => x + 1), Math.max(3, 4), typeof globalThis.g1999]",
        ))
        .await
        .unwrap();
    assert_ok(&second);
    assert_eq!(second.value, Some(json!(["function", [2], 4, "undefined"])));
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
