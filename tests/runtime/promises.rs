//! Promises, `await` and binding calls' promises: the order their jobs run
//! in, how each settles, and what becomes of an async function left
//! waiting. The project's QuickJS patch makes the promises no program can
//! settle itself (a binding call's, the one `then` returns, an async
//! function's, `Promise.resolve`'s) without resolving functions, queues a
//! settled promise's reaction without its two records, and keeps an async
//! function's pair of resume functions from its first `await` to its end;
//! none of it may show.

use super::*;
use serde_json::json;

/// Awaits of every kind (`null`, a settled promise, a rejected one, a
/// thenable, an async call) in two async functions, between a chain of
/// `then`s and a microtask. The expected order is Node's (v20) for the same
/// program.
#[tokio::test]
async fn awaits_and_reactions_run_in_the_order_node_runs_them() {
    returns_as_node(
        r#"
        const log = [];
        const settled = Promise.resolve('s');
        const rejected = Promise.reject(new Error('r'));
        rejected.catch(() => {});
        const thenable = { then(resolve) { log.push('then called'); resolve('t'); } };
        async function a() {
          log.push('a0');
          log.push('a:' + await null);
          log.push('a:' + await settled);
          try { await rejected; } catch (e) { log.push('a caught ' + e.message); }
          log.push('a:' + await thenable);
          log.push('a:' + await (async () => 'inner')());
          return 'a done';
        }
        async function b() {
          log.push('b0');
          for (let i = 0; i < 3; i++) log.push('b' + await i);
          throw new Error('b threw');
        }
        Promise.resolve().then(() => log.push('p1')).then(() => log.push('p2'))
          .then(() => log.push('p3')).then(() => log.push('p4')).then(() => log.push('p5'))
          .then(() => log.push('p6')).then(() => log.push('p7'));
        const pa = a();
        const pb = b();
        pa.then((v) => log.push(v));
        pb.catch((e) => log.push(e.message));
        queueMicrotask(() => log.push('m'));
        await Promise.allSettled([pa, pb]);
        await new Promise((r) => setTimeout(r, 0));
        return log;
    "#,
        json!([
            "a0",
            "b0",
            "p1",
            "a:null",
            "b0",
            "m",
            "p2",
            "a:s",
            "b1",
            "p3",
            "a caught r",
            "b2",
            "p4",
            "then called",
            "b threw",
            "p5",
            "a:t",
            "p6",
            "a:inner",
            "p7",
            "a done"
        ]),
    )
    .await;
}

/// The reactions of one promise, `then`s and `await`s alike, run in the
/// order they were added: for a promise pending when they were added and
/// for one already rejected (whose jobs are queued as they are added).
/// Node's order for the same program.
#[tokio::test]
async fn one_promises_reactions_run_in_the_order_they_were_added() {
    returns_as_node(
        r#"
        const log = [];
        const shared = new Promise((resolve) => queueMicrotask(() => resolve('s')));
        shared.then((v) => log.push('then 1 ' + v));
        (async () => { log.push('await ' + await shared); })();
        shared.then((v) => log.push('then 2 ' + v));
        const failed = Promise.reject(new Error('f'));
        failed.catch((e) => log.push('catch 1 ' + e.message));
        (async () => { try { await failed; } catch (e) { log.push('await caught ' + e.message); } })();
        failed.then(null, (e) => log.push('catch 2 ' + e.message));
        await Promise.allSettled([shared, failed]);
        return log;
    "#,
        json!([
            "catch 1 f",
            "await caught f",
            "catch 2 f",
            "then 1 s",
            "await s",
            "then 2 s"
        ]),
    )
    .await;
}

/// Each way a promise is settled: `then`'s promise by a handler's thenable,
/// throw, promise or itself, a subclass's `then` and `resolve`,
/// `Promise.resolve` of a thenable, `Promise.reject` of a promise, and async
/// functions that return a thenable or a promise, or throw. Node (v20) gives
/// the same results in the same order (its message for a promise resolved
/// with itself differs, so only the error's class is compared there).
#[tokio::test]
async fn promises_settle_as_node_settles_them() {
    returns_as_node(
        r#"
        const log = [];
        class MyPromise extends Promise {}
        const thenable = (v) => ({ then(resolve) { log.push('then ' + v); resolve(v); } });
        const p1 = Promise.resolve(1).then((v) => thenable(v + 1));
        const p2 = Promise.resolve(2).then(() => { throw new Error('thrown'); });
        const self = Promise.resolve().then(() => self);
        const sub = MyPromise.resolve(3).then((v) => v * 2);
        const viaPromise = Promise.resolve(4).then((v) => Promise.resolve(v + 1));
        const resolved = Promise.resolve(thenable(5));
        const rejected = Promise.reject(Promise.resolve(6));
        async function returnsThenable() { return thenable(7); }
        async function returnsPromise() { await null; return Promise.resolve(8); }
        async function throws() { await undefined; throw new TypeError('async threw'); }
        log.push(sub instanceof MyPromise, Promise.resolve(sub) === sub, MyPromise.resolve(sub) === sub);
        const results = await Promise.allSettled([p1, p2, self, sub, viaPromise, resolved, rejected,
          returnsThenable(), returnsPromise(), throws()]);
        for (const r of results) {
          if (r.status === 'fulfilled') log.push('ok ' + r.value);
          else log.push('no ' + (r.reason instanceof Error
            ? r.reason.constructor.name + (r.reason.message.includes('thr') ? ': ' + r.reason.message : '')
            : r.reason instanceof Promise ? 'a promise' : String(r.reason)));
        }
        return log;
    "#,
        json!([
            true,
            false,
            true,
            "then 5",
            "then 7",
            "then 2",
            "ok 2",
            "no Error: thrown",
            "no TypeError",
            "ok 6",
            "ok 5",
            "ok 5",
            "no a promise",
            "ok 7",
            "ok 8",
            "no TypeError: async threw"
        ]),
    )
    .await;
}

/// A binding's result is resolved into its promise as a resolve function
/// would: an object with a callable `then` (here every object, through
/// `Object.prototype`) is followed, once.
#[tokio::test]
async fn a_bindings_result_with_a_then_is_followed_as_a_thenable() {
    let result = run_request(
        CodeRunRequest::new(
            "let calls = 0;
             Object.defineProperty(Object.prototype, 'then', {
               configurable: true,
               value(resolve) {
                 calls++;
                 delete Object.prototype.then;
                 resolve('followed ' + this.a);
               },
             });
             const got = await tools.echo({ a: 1 });
             return [got, calls];",
        )
        .binding(tools()),
    )
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(["followed 1", 1])));
}

/// A `then` that throws rejects the call's promise with what it threw, and
/// a rejected call's promise runs its reactions in order with the rest.
#[tokio::test]
async fn a_throwing_then_and_a_failed_call_reject_in_order() {
    let result = run_request(
        CodeRunRequest::new(
            "const log = [];
             Object.defineProperty(Object.prototype, 'then', {
               configurable: true,
               get() { delete Object.prototype.then; throw new Error('then threw'); },
             });
             const first = tools.echo({ a: 1 }).then(() => log.push('resolved'), (e) => log.push(e.message));
             const second = tools.fail(2).then(() => log.push('resolved'), (e) => log.push(e.message));
             await first; await second;
             return log;",
        )
        .binding(tools()),
    )
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(["then threw", "nope"])));
}

/// An async function waiting on a promise nothing else holds keeps its
/// resume functions, and they it: only the cycle collector frees them. The
/// program lets each of 10,000 reach that wait before it starts the next;
/// a guest whose collector did not see the pair ran out of the 9 MiB cap a
/// third of the way through.
#[tokio::test]
async fn async_functions_left_waiting_are_collected() {
    let result = run_in_smallest_memory(
        "for (let i = 0; i < 10000; i++) {
           (async () => { await null; await new Promise(() => {}); })();
           await null; await null;
         }
         return 'done';",
    )
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!("done")));
}

/// Async functions that end, by returning or by throwing, after awaiting
/// twice: each resumes with the value it awaited, and 60,000 of them, one
/// after another, fit in a 9 MiB cap.
#[tokio::test]
async fn async_functions_that_end_are_freed() {
    let result = run_in_smallest_memory(
        "let sum = 0;
         const add = async (i) => { await null; sum += await i; if (i % 2) throw i; return i; };
         for (let i = 0; i < 60000; i++) await add(i).catch(() => {});
         return sum;",
    )
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(59_999_u64 * 60_000 / 2)));
}

/// A run under the smallest memory cap the config takes, 9 MiB, of which
/// the guest's own memory takes 8.5.
async fn run_in_smallest_memory(source: &str) -> CodeRunResult {
    runtime_with(|c| {
        c.max_memory_bytes(9 * 1024 * 1024);
    })
    .run(CodeRunRequest::new(source))
    .await
    .expect("no misuse")
}

/// Runs `source` and checks that it returns `node`: what Node (v20)
/// returned for the same program, the body of an async function.
async fn returns_as_node(source: &str, node: serde_json::Value) {
    returns(CodeRunRequest::new(source), node).await;
}
