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

/// A run hashes the shapes it makes in a table of its own, the snapshot's
/// being only looked up (the QuickJS patch): thousands of shapes made,
/// freed with their objects and made again, through that table's growth,
/// find the snapshot's shapes and each other, and the next run starts with
/// the table empty.
#[tokio::test]
async fn a_runs_shapes_are_hashed_found_and_freed_in_a_table_of_its_own() {
    let program = r#"
        let total = 0;
        for (let round = 0; round < 3; round++) {
            let objects = [];
            for (let i = 0; i < 3000; i++) {
                const o = {};
                o['k' + (i % 1500)] = i;
                o.v = round;
                objects.push(o);
            }
            for (const o of objects) total += o.v + Object.keys(o).length;
            objects = null;
        }
        const like = { length: 1 }, same = { length: 2 }, more = { id: 1, name: 'x' };
        return [total, Object.keys(like), same.length, JSON.stringify(more), Object.keys({ k7: 1, v: 2 })];
    "#;
    let expected = json!([27000, ["length"], 2, r#"{"id":1,"name":"x"}"#, ["k7", "v"]]);
    returns_twice_alike(program, expected).await;
}

/// Runs `program` twice in one runtime: it returns `expected` both times,
/// and burns the same fuel.
async fn returns_twice_alike(program: &str, expected: serde_json::Value) {
    let runtime = runtime_with(|_| {});
    let mut fuel = Vec::new();
    for _ in 0..2 {
        let result = runtime
            .run(CodeRunRequest::new(program))
            .await
            .expect("run");
        assert_ok(&result);
        assert_eq!(result.value, Some(expected.clone()));
        fuel.push(result.fuel_consumed);
    }
    assert_eq!(fuel[0], fuel[1], "the same program burns the same fuel");
}

/// The same for atoms (the QuickJS patch): thousands of new names, made
/// and freed through the run's table's growth, next to the snapshot's.
#[tokio::test]
async fn a_runs_atoms_are_hashed_found_and_freed_in_a_table_of_its_own() {
    let program = r#"
        let found = 0;
        for (let round = 0; round < 3; round++) {
            let bag = {};
            for (let i = 0; i < 2000; i++) bag['name' + round + '_' + i] = i;
            for (let i = 0; i < 2000; i += 7) found += bag['name' + round + '_' + i] === i ? 1 : 0;
            bag = null;
        }
        const seen = new Set(['length', 'prototype', 'name1_7', 'constructor']);
        return [found, seen.has('name1_7'), Symbol.for('k') === Symbol.for('k'), 'x'.length];
    "#;
    returns_twice_alike(program, json!([858, true, true, 1])).await;
}

/// The blocks of the snapshot every run writes (the atom array, the
/// global object's shape and slots) move ahead of the run's own memory when
/// the snapshot is sealed (the QuickJS patch): a run's new names take the
/// atom slots left on the array's last page, then the others, then grow the
/// array; its globals extend the moved shape and slots past their room;
/// and the next run starts from the snapshot as it was.
#[tokio::test]
async fn a_runs_names_and_globals_extend_the_blocks_moved_at_the_seal() {
    let program = r#"
        const counts = [10, 40, 1500, 5000].map(n => {
            const bag = {};
            for (let i = 0; i < n; i++) bag[`n${n}_${i}`] = i;
            return Object.keys(bag).length;
        });
        for (let i = 0; i < 300; i++) globalThis['moved' + i] = i;
        (0, eval)('var movedVar = 7;');
        const seen = (0, eval)('movedVar + moved8');
        delete globalThis.moved5;
        return [counts, seen, globalThis.moved299, 'moved5' in globalThis,
                Object.keys(globalThis).filter(k => k.startsWith('moved')).length];
    "#;
    let expected = json!([[10, 40, 1500, 5000], 15, 299, false, 300]);
    returns_twice_alike(program, expected).await;
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
