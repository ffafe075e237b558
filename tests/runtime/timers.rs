//! Timers on the real clock: `setTimeout`, `setInterval`, their `clear`s
//! and `queueMicrotask`, inside the wall-clock budget.

use std::time::Duration;

use coderun_runtime::{CodeRunRequest, CodeRuntime, FailureKind};
use serde_json::json;

use crate::{assert_failure, assert_ok, run, run_request, runtime_with, tools};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timers_fire_in_due_order_then_set_order() {
    let result = run("const order = [];
         setTimeout(() => order.push('c'), 30);
         setTimeout(() => order.push('a'), 5);
         setTimeout(() => order.push('b1'), 10);
         setTimeout(() => order.push('b2'), 10);
         await new Promise((resolve) => setTimeout(resolve, 50));
         return order;")
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(["a", "b1", "b2", "c"])));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_usual_sleep_works_and_waits() {
    let result = run("const start = Date.now();
         await new Promise((r) => setTimeout(r, 200));
         return Date.now() - start;")
    .await;
    assert_ok(&result);
    let waited = result.value.and_then(|v| v.as_f64()).expect("a number");
    assert!(waited >= 199.0, "the timer fired after {waited} ms");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cleared_timers_do_not_fire_and_arguments_are_passed() {
    let result = run("const seen = [];
         const a = setTimeout(() => seen.push('cleared'), 5);
         clearTimeout(a);
         clearTimeout(12345);
         setTimeout((x, y) => seen.push(x + y), 1, 'ar', 'gs');
         await new Promise((r) => setTimeout(r, 20));
         return seen;")
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(["args"])));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_timers_and_microtasks_interleave_like_node() {
    let result = run("const order = [];
         setTimeout(() => {
           order.push('outer');
           Promise.resolve().then(() => order.push('microtask of outer'));
           setTimeout(() => order.push('inner'), 1);
         }, 1);
         setTimeout(() => order.push('second'), 1);
         queueMicrotask(() => order.push('microtask'));
         await new Promise((r) => setTimeout(r, 30));
         return order;")
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            "microtask",
            "outer",
            "microtask of outer",
            "second",
            "inner"
        ]))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interval_cleared_after_n_ticks_stops() {
    let result = run("let ticks = 0;
         await new Promise((resolve) => {
           const id = setInterval(() => {
             ticks += 1;
             if (ticks === 5) { clearInterval(id); resolve(); }
           }, 2);
         });
         await new Promise((r) => setTimeout(r, 20));
         return ticks;")
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(5)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timer_past_the_wall_clock_is_a_wall_clock_timeout() {
    let runtime = runtime_with(|c| {
        c.wall_clock(Duration::from_millis(300));
    });
    let result = runtime
        .run(CodeRunRequest::new(
            "await new Promise((r) => setTimeout(r, 60_000)); return 'woke';",
        ))
        .await
        .expect("no misuse");
    assert_failure(&result, FailureKind::Timeout, "wall-clock");
    assert!(
        result.fuel_consumed < 10_000_000,
        "waiting burned fuel: {}",
        result.fuel_consumed
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_only_on_a_timer_is_not_stalled_but_an_empty_wait_is() {
    let result = run("await new Promise((r) => setTimeout(r, 10)); return 'done';").await;
    assert_ok(&result);
    let stalled = run("await new Promise(() => {}); return 'never';").await;
    assert_failure(&stalled, FailureKind::Exception, "can never settle");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timers_race_binding_calls() {
    let result = run_request(
        CodeRunRequest::new(
            "const sleep = (ms, v) => new Promise((r) => setTimeout(() => r(v), ms));
             const first = await Promise.race([sleep(5, 'timer'), tools.echo('call')]);
             const timedOut = await Promise.race([sleep(5, 'timer'), new Promise(() => {})]);
             return [first, timedOut];",
        )
        .binding(tools()),
    )
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(["call", "timer"])));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_throwing_timer_callback_fails_the_run_and_bad_callbacks_are_refused() {
    let result = run(
        "setTimeout(() => { throw new Error('boom in a timer'); }, 1);
         await new Promise((r) => setTimeout(r, 50));
         return 'unreachable';",
    )
    .await;
    assert_failure(&result, FailureKind::Exception, "boom in a timer");
    let refused = run("try { setTimeout('1 + 1', 1); } catch (e) { return e.message; }").await;
    assert_ok(&refused);
    assert!(
        refused
            .value
            .as_ref()
            .and_then(|v| v.as_str())
            .is_some_and(|m| m.contains("must be a function")),
        "{:?}",
        refused.value
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_delays_are_clamped_like_node() {
    // NaN, negative, Infinity, past 2^31 - 1 and non-numbers all mean 1 ms.
    let result = run("const order: string[] = [];
         const delays: any[] = [NaN, -5, Infinity, 2 ** 31, 1e300, '10', {}, undefined];
         await Promise.all(delays.map((d, i) => new Promise<void>((r) =>
           setTimeout(() => { order.push(String(i)); r(); }, d))));
         return order;")
    .await;
    assert_ok(&result);
    // '10' is 10 ms; the rest are 1 ms, in the order they were set.
    assert_eq!(
        result.value,
        Some(json!(["0", "1", "2", "3", "4", "6", "7", "5"]))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_timers_stay_inside_the_guests_budgets() {
    // 20,000 pending timers live in the guest's heap and fire in order.
    let result = run("let fired = 0;
         for (let i = 0; i < 20_000; i++) setTimeout(() => { fired++; }, 1);
         await new Promise((r) => setTimeout(r, 2));
         return fired;")
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(20_000)));
    // Timers that never stop are stopped by a budget, not the host.
    let runtime = runtime_with(|c| {
        c.fuel(50_000_000).wall_clock(Duration::from_secs(20));
    });
    let endless = runtime
        .run(CodeRunRequest::new(
            "setInterval(() => { for (let i = 0; i < 1000; i++) setTimeout(() => {}, 0); }, 0);
             await new Promise(() => setTimeout(() => {}, 1e9));",
        ))
        .await
        .expect("no misuse");
    let error = endless.error.expect("the run is stopped");
    assert!(
        matches!(error.kind, FailureKind::Timeout | FailureKind::WorkerExit),
        "{error}"
    );
    assert!(
        runtime
            .run(CodeRunRequest::new("return 1"))
            .await
            .expect("no misuse")
            .is_ok()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timer_set_after_every_earlier_one_fired_or_was_cleared_still_fires() {
    let result = run_request(
        CodeRunRequest::new(
            "const seen = [];
             await new Promise((r) => setTimeout(r, 2));
             seen.push(await tools.echo('call'));
             clearTimeout(setTimeout(() => seen.push('cleared'), 1));
             await tools.echo('another call');
             await new Promise((r) => setTimeout(() => r(seen.push('fired')), 2));
             return seen;",
        )
        .binding(tools()),
    )
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(["call", "fired"])));
}
