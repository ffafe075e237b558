//! Fuel, wall clock, memory, stack, log and value caps.

use std::time::Duration;

use super::*;
use coderun_runtime::CodeRuntime;
use serde_json::json;

/// `tools.nap()`, which answers `"rested"` after `time`.
fn napping(time: Duration) -> CodeBindingNamespace {
    CodeBindingNamespace::new("tools").function("nap", move |_| async move {
        tokio::time::sleep(time).await;
        Ok(json!("rested"))
    })
}

#[tokio::test]
async fn an_endless_loop_exhausts_the_fuel_budget() {
    let runtime = runtime_with(|c| {
        c.fuel(50_000_000);
    });
    let result = runtime
        .run(CodeRunRequest::new("for (;;) {}"))
        .await
        .unwrap();
    assert_failure(&result, FailureKind::Timeout, "fuel");
    assert_eq!(result.fuel_consumed, 50_000_000);
}

#[tokio::test]
async fn fuel_consumption_is_deterministic() {
    let program = r#"
        let s = 0;
        for (let i = 0; i < 20000; i++) s += i % 7;
        const arr = Array.from({ length: 500 }, (_, i) => ({ i, sq: i * i }));
        return JSON.stringify(arr).length + s;
    "#;
    let mut fuel = Vec::new();
    for _ in 0..3 {
        let result = run(program).await;
        assert_ok(&result);
        fuel.push(result.fuel_consumed);
    }
    assert!(fuel[0] > 0);
    assert_eq!(fuel[0], fuel[1]);
    assert_eq!(fuel[1], fuel[2]);

    // A budget that runs out stops at the same point every time.
    let runtime = runtime_with(|c| {
        c.fuel(fuel[0] / 2);
    });
    for _ in 0..2 {
        let result = runtime.run(CodeRunRequest::new(program)).await.unwrap();
        assert_failure(&result, FailureKind::Timeout, "fuel");
        assert_eq!(result.fuel_consumed, fuel[0] / 2);
    }
}

#[tokio::test]
async fn awaiting_a_binding_burns_no_fuel() {
    let runtime = runtime_with(|c| {
        c.fuel(20_000_000).wall_clock(Duration::from_secs(60));
    });
    let result = runtime
        .run(
            CodeRunRequest::new("return await tools.nap()")
                .binding(napping(Duration::from_secs(2))),
        )
        .await
        .unwrap();
    assert_ok(&result);
    assert_eq!(result.value, Some(json!("rested")));
}

#[tokio::test]
async fn a_binding_that_never_settles_hits_the_wall_clock() {
    let runtime = runtime_with(|c| {
        c.wall_clock(Duration::from_millis(300));
    });
    let host = CodeBindingNamespace::new("tools")
        .function("hang", |_| async move { std::future::pending().await });
    let result = runtime
        .run(CodeRunRequest::new("console.log('before'); await tools.hang()").binding(host))
        .await
        .unwrap();
    assert_failure(&result, FailureKind::Timeout, "wall-clock");
    assert_eq!(result.logs, vec!["before"]);
}

#[tokio::test]
async fn a_promise_that_can_never_settle_is_an_exception() {
    let result = run("await new Promise(() => {}); return 1").await;
    assert_failure(&result, FailureKind::Exception, "can never settle");
}

/// A run may allocate a little past the snapshot's heap before its first
/// cycle collection (which walks the whole heap); the headroom stays small
/// enough that a program making 20 MB of cyclic garbage still runs under a
/// 9 MiB memory cap, the collector freeing it as it goes.
#[tokio::test]
async fn cyclic_garbage_is_collected_in_time_under_a_small_memory_cap() {
    let runtime = runtime_with(|c| {
        c.max_memory_bytes(9 * 1024 * 1024);
    });
    let program = "let n = 0; for (let i = 0; i < 200000; i++) { \
        const a = { s: 'x'.repeat(100) + i }; const b = { a }; a.b = b; n += a.s.length; } return n";
    let result = runtime.run(CodeRunRequest::new(program)).await.unwrap();
    assert_eq!(
        result.value,
        Some(serde_json::json!(21088890)),
        "{:?}",
        result.error
    );
}

/// The native `JSON.parse` holds the cycle collector off while it reads
/// and hands it back after: a program making 20 MB of cyclic garbage
/// between parses still runs under a 9 MiB memory cap. (With the
/// collector's threshold left where the parse set it, the garbage was never
/// collected and the run failed.)
#[tokio::test]
async fn cyclic_garbage_is_collected_between_json_parses() {
    let runtime = runtime_with(|c| {
        c.max_memory_bytes(9 * 1024 * 1024);
    });
    let program = "let n = 0; for (let i = 0; i < 200000; i++) {         const a = { s: 'x'.repeat(100) + i }; const b = { a }; a.b = b;         n += a.s.length + JSON.parse('[1,{\"k\":[2]}]')[1].k[0]; } return n";
    let result = runtime.run(CodeRunRequest::new(program)).await.unwrap();
    assert_eq!(
        result.value,
        Some(serde_json::json!(21088890 + 400000)),
        "{:?}",
        result.error
    );
}

/// The snapshot's objects are off the collector's list (the QuickJS
/// patch's `CODERUN_IMMORTAL_BIAS`): a collection walks what the run made,
/// not the thousands of built-ins and platform objects every run starts
/// with. So collecting pairs of objects that point at each other costs no
/// more fuel than freeing the same pairs one object at a time. While every
/// collection walked the snapshot, it cost 1.07 times as much (the guest
/// before this change); now 0.98.
#[tokio::test]
async fn a_collection_walks_the_runs_objects_not_the_snapshots() {
    let pairs = |link: &str| {
        format!(
            "let n = 0; for (let i = 0; i < 50000; i++) {{ \
             const a = {{ i }}; const b = {{ a }}; a.b = {link}; n += b.a.i; }} return n"
        )
    };
    let cyclic = run(&pairs("b")).await;
    let acyclic = run(&pairs("i")).await;
    for result in [&cyclic, &acyclic] {
        assert_eq!(result.value, Some(json!(1249975000)), "{:?}", result.error);
    }
    let ratio = cyclic.fuel_consumed as f64 / acyclic.fuel_consumed as f64;
    assert!(
        ratio <= 1.02,
        "collecting the cycles cost {ratio:.3} times freeing the pairs one by one \
         ({} against {} units)",
        cyclic.fuel_consumed,
        acyclic.fuel_consumed
    );
}

#[tokio::test]
async fn a_memory_hog_ends_as_worker_exit_naming_the_cap() {
    let runtime = runtime_with(|c| {
        c.max_memory_bytes(32 * 1024 * 1024);
    });
    let program = r#"
        try {
            const a = [];
            for (;;) a.push(new Array(1e6).fill(1));
        } catch (e) {
            return 'swallowed: ' + e;
        }
    "#;
    let result = runtime.run(CodeRunRequest::new(program)).await.unwrap();
    assert_failure(&result, FailureKind::WorkerExit, "memory cap");
    assert_failure(&result, FailureKind::WorkerExit, "max_memory_bytes");
    let next = runtime
        .run(CodeRunRequest::new("return 'alive'"))
        .await
        .unwrap();
    assert_ok(&next);
    assert_eq!(next.value, Some(json!("alive")));
}

/// What a run frees is reused: QuickJS's heap after the snapshot (the
/// guest's alloc.rs) grows past its reserve and gives memory back to
/// itself, so a program that makes and drops 200 MiB of buffers and
/// objects stays within a 32 MiB cap; blocks from the snapshot (the global
/// object's properties) move to it when they grow.
#[tokio::test]
async fn memory_a_run_frees_is_reused() {
    let runtime = runtime_with(|c| {
        c.max_memory_bytes(32 * 1024 * 1024);
    });
    let program = r#"
        let total = 0;
        for (let i = 0; i < 200; i++) {
            const bytes = new Uint8Array(1 << 20);
            bytes[i] = i;
            const list = Array.from({ length: 500 }, (_, k) => ({ k, label: 'item ' + k }));
            globalThis['g' + i] = list.length;
            total += bytes.length + bytes[i] + list.length;
        }
        return total;
    "#;
    let result = runtime.run(CodeRunRequest::new(program)).await.unwrap();
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!(200 * (1 << 20) + 19900 + 200 * 500))
    );
    assert!(
        result.peak_memory_bytes < 24 * 1024 * 1024,
        "{}",
        result.peak_memory_bytes
    );
}

#[tokio::test]
async fn unbounded_recursion_is_a_catchable_range_error() {
    let result = run("function f(n: number): number { return f(n + 1) + 1; }\nreturn f(0);").await;
    assert_failure(
        &result,
        FailureKind::Exception,
        "Maximum call stack size exceeded",
    );

    let caught = run("function f(n: number): number { return f(n + 1) + 1; }\n\
         try { f(0); } catch (e) { return [e instanceof RangeError, e.message]; }")
    .await;
    assert_ok(&caught);
    assert_eq!(
        caught.value,
        Some(json!([true, "Maximum call stack size exceeded"]))
    );

    let next = run("return 'alive'").await;
    assert_ok(&next);
}

#[tokio::test]
async fn log_output_is_capped_with_one_marker() {
    let runtime = runtime_with(|c| {
        c.max_log_bytes(64 * 1024);
    });
    let program = r#"
        const line = 'x'.repeat(1000);
        for (let i = 0; i < 10000; i++) console.log(line);
        return 'done';
    "#;
    let result = runtime.run(CodeRunRequest::new(program)).await.unwrap();
    assert_ok(&result);
    assert_eq!(result.value, Some(json!("done")));
    let markers = result
        .logs
        .iter()
        .filter(|l| l.text.contains("truncated by coderun"))
        .count();
    assert_eq!(markers, 1);
    assert!(result.logs.last().unwrap().text.contains("max_log_bytes"));
    let kept: usize = result.logs.iter().map(|l| l.text.len() + 1).sum();
    assert!(kept <= 64 * 1024, "kept {kept} bytes, the marker included");
    assert!(kept > 60 * 1024, "kept only {kept} bytes");
}

#[tokio::test]
async fn a_huge_value_is_cut_with_a_marker() {
    let runtime = runtime_with(|c| {
        c.max_value_bytes(1000);
    });
    let result = runtime
        .run(CodeRunRequest::new("return 'é' + 'y'.repeat(10_000_000)"))
        .await
        .unwrap();
    assert_ok(&result);
    let value = result.value.unwrap();
    let text = value.as_str().unwrap();
    assert!(text.starts_with("éyyy"));
    assert!(text.contains("[truncated by coderun"), "{text}");
    assert!(text.contains("10000002 bytes"), "{text}");
    assert!(text.len() <= 1000, "{} bytes, over the cap", text.len());
}

#[tokio::test]
async fn without_fuel_metering_only_the_wall_clock_bounds_a_run() {
    let runtime = runtime_with(|c| {
        c.fuel_metering(false)
            .fuel(1_000)
            .wall_clock(Duration::from_millis(300));
    });
    // Far more work than 1,000 units of fuel would allow.
    let result = runtime
        .run(CodeRunRequest::new(
            "let s = 0; for (let i = 0; i < 100000; i++) s += i; return s",
        ))
        .await
        .unwrap();
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(4_999_950_000_i64)));
    assert_eq!(result.fuel_consumed, 0);

    let result = runtime
        .run(CodeRunRequest::new("for (;;) {}"))
        .await
        .unwrap();
    assert_failure(&result, FailureKind::Timeout, "wall-clock");
    assert_eq!(result.fuel_consumed, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_memory_hogs_stay_within_the_runtime_wide_budget() {
    const MIB: u64 = 1024 * 1024;
    let runtime = runtime_with(|c| {
        c.max_memory_bytes(128 * MIB)
            .max_total_memory_bytes(Some(512 * MIB))
            .max_concurrent_runs(32)
            .wall_clock(Duration::from_secs(60));
    });
    assert_eq!(runtime.total_memory_budget(), 512 * MIB);
    let hog = "const a = []; for (;;) a.push(new Array(1e5).fill(1))";
    let results =
        futures::future::join_all((0..20).map(|_| runtime.run(CodeRunRequest::new(hog)))).await;
    let mut by_total = 0;
    for result in results {
        let result = result.unwrap();
        let error = result.error.expect("a hog never finishes");
        assert_eq!(error.kind, FailureKind::WorkerExit, "{error}");
        if error.message.contains("config.max_total_memory_bytes") {
            by_total += 1;
        } else {
            assert!(error.message.contains("config.max_memory_bytes"), "{error}");
        }
    }
    // Twenty hogs of 128 MiB cannot all fit in 512 MiB at once.
    assert!(by_total > 0, "no hog was stopped by the shared budget");
    assert!(runtime.peak_memory_in_use() <= 512 * MIB);
    assert!(runtime.peak_memory_in_use() > 256 * MIB);
    assert_eq!(runtime.memory_in_use(), 0);
    let next = runtime
        .run(CodeRunRequest::new("return 'alive'"))
        .await
        .unwrap();
    assert_eq!(next.value, Some(json!("alive")));
}

#[tokio::test]
async fn a_run_waits_for_the_memory_its_guest_starts_with() {
    const MIB: u64 = 1024 * 1024;
    // Room for one guest at a time: the second run waits for the first.
    let runtime = runtime_with(|c| {
        c.max_memory_bytes(16 * MIB)
            .max_total_memory_bytes(Some(16 * MIB));
    });
    let host = napping(Duration::from_millis(200));
    let first = runtime.run(CodeRunRequest::new("return await tools.nap()").binding(host.clone()));
    let second = runtime.run(CodeRunRequest::new("return await tools.nap()").binding(host));
    let (first, second) = tokio::join!(first, second);
    assert_eq!(first.unwrap().value, Some(json!("rested")));
    assert_eq!(second.unwrap().value, Some(json!("rested")));
    assert!(runtime.peak_memory_in_use() <= 16 * MIB);
}

#[tokio::test]
async fn a_run_waits_for_a_slot_and_can_be_aborted_while_it_waits() {
    // One slot: the second run waits for the first to end, then runs; the
    // third is aborted while it waits, and never starts.
    let runtime = runtime_with(|c| {
        c.max_concurrent_runs(1);
    });
    let host = napping(Duration::from_millis(300));
    let controller = coderun_runtime::AbortController::new();
    let first = runtime.run(CodeRunRequest::new("return await tools.nap()").binding(host));
    let second = runtime.run(CodeRunRequest::new("return 'after'"));
    let third = runtime.run(CodeRunRequest::new("return 'never'").signal(controller.signal()));
    let abort = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        controller.abort("no longer wanted");
    };
    let (first, second, third, ()) = tokio::join!(first, second, third, abort);
    assert_eq!(first.unwrap().value, Some(json!("rested")));
    assert_eq!(second.unwrap().value, Some(json!("after")));
    let third = third.unwrap();
    assert_failure(&third, FailureKind::Abort, "no longer wanted");
    assert_eq!(third.fuel_consumed, 0, "the aborted run never started");
}

#[tokio::test]
async fn a_wall_clock_spent_before_the_guest_starts_ends_the_run() {
    // The wall clock runs out while the program is transformed, before the
    // guest's first step: the run ends as a timeout, not with its value,
    // although nothing waited for anything.
    let runtime = runtime_with(|c| {
        c.wall_clock(Duration::from_nanos(1));
    });
    let result = runtime
        .run(CodeRunRequest::new("return 'too late'"))
        .await
        .unwrap();
    assert_failure(&result, FailureKind::Timeout, "wall-clock");
    assert_eq!(result.value, None);
}
