//! Host bindings: calls, rejections, overlap, names, JSON boundaries.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::*;
use serde_json::json;

#[tokio::test]
async fn a_binding_returns_its_result_to_the_program() {
    let result =
        run_request(CodeRunRequest::new("return await tools.echo({a: 1})").binding(tools())).await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!({"a": 1})));
}

#[tokio::test]
async fn a_binding_error_rejects_with_a_catchable_error() {
    let program = r#"
        try { await tools.fail({}); return 'not rejected'; }
        catch (e) { return [e instanceof Error, e.message]; }
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(tools())).await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!([true, "nope"])));
}

#[tokio::test]
async fn an_uncaught_binding_error_fails_the_run() {
    let result = run_request(CodeRunRequest::new("await tools.fail()").binding(tools())).await;
    assert_failure(&result, FailureKind::Exception, "nope");
}

#[tokio::test]
async fn concurrent_calls_overlap_on_the_host() {
    let spans: Arc<Mutex<Vec<(Instant, Instant)>>> = Arc::default();
    let recorded = spans.clone();
    let slow = CodeBindingNamespace::new("host").function("slow", move |args| {
        let recorded = recorded.clone();
        async move {
            let enter = Instant::now();
            tokio::time::sleep(Duration::from_millis(100)).await;
            recorded.lock().unwrap().push((enter, Instant::now()));
            Ok(args)
        }
    });
    let program = "return await Promise.all([host.slow(1), host.slow(2), host.slow(3)])";
    let result = run_request(CodeRunRequest::new(program).binding(slow)).await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!([1, 2, 3])));
    let spans = spans.lock().unwrap();
    assert_eq!(spans.len(), 3);
    let last_enter = spans.iter().map(|s| s.0).max().unwrap();
    let first_exit = spans.iter().map(|s| s.1).min().unwrap();
    assert!(
        last_enter < first_exit,
        "every call entered before any returned: {spans:?}"
    );
}

#[tokio::test]
async fn the_program_keeps_running_while_a_call_is_in_flight() {
    let program = r#"
        const pending = tools.echo('late');
        let spins = 0;
        for (let i = 0; i < 1000; i++) spins++;
        return [spins, await pending];
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(tools())).await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!([1000, "late"])));
}

#[tokio::test]
async fn hostile_names_are_plain_own_properties() {
    let mut names = CodeBindingNamespace::new("tools");
    for name in ["__proto__", "constructor", "my-tool", "日本", "toString"] {
        names = names.function(name, move |_| async move { Ok(json!(name)) });
    }
    let program = r#"
        return {
            calls: [await tools.__proto__(), await tools.constructor(), await tools['my-tool'](), await tools['日本'](), await tools.toString()],
            own: Object.keys(tools).sort(),
            hasOwnProperty: typeof tools.hasOwnProperty,
            nullProto: Object.getPrototypeOf(tools) === null,
        };
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(names)).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            "calls": ["__proto__", "constructor", "my-tool", "日本", "toString"],
            "own": ["__proto__", "constructor", "my-tool", "toString", "日本"],
            "hasOwnProperty": "undefined",
            "nullProto": true,
        }))
    );
}

#[tokio::test]
async fn bindings_are_named_writable_enumerable_configurable_properties() {
    let mut names = CodeBindingNamespace::new("tools");
    for name in ["zeta", "__proto__", "alpha", "10"] {
        names = names.function(name, move |_| async move { Ok(json!(name)) });
    }
    let program = r#"
        const shape = (name) => {
            const d = Object.getOwnPropertyDescriptor(tools, name);
            return [typeof d.value, d.value.name, d.writable, d.enumerable, d.configurable];
        };
        const global = Object.getOwnPropertyDescriptor(globalThis, 'tools');
        return {
            order: Object.keys(tools),
            shapes: ['zeta', '__proto__', 'alpha', '10'].map(shape),
            global: [global.writable, global.enumerable, global.configurable],
        };
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(names)).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            // Integer-like keys first, as for every object; the rest in the
            // namespace's order (by name).
            "order": ["10", "__proto__", "alpha", "zeta"],
            "shapes": [
                ["function", "zeta", true, true, true],
                ["function", "__proto__", true, true, true],
                ["function", "alpha", true, true, true],
                ["function", "10", true, true, true],
            ],
            "global": [true, false, true],
        }))
    );
}

/// A binding is a function as the platform's own are: its name and a
/// length of 1 (configurable, not writable), `Function.prototype`, native
/// code, not a constructor, called with any `this`. A name with a NUL
/// byte (a C string would end at it) is a function of the same shape,
/// named in full.
#[tokio::test]
async fn bindings_are_functions_of_the_platforms_shape() {
    let names = ["search", "nul\0name"]
        .into_iter()
        .fold(CodeBindingNamespace::new("tools"), |names, name| {
            names.function(name, move |args| async move { Ok(json!([name, args])) })
        });
    let program = r#"
        return await Promise.all(Object.keys(tools).map(async (key) => {
            const f = tools[key];
            let constructed;
            try { new f(1); constructed = 'constructed'; } catch (e) { constructed = e.message; }
            const name = Object.getOwnPropertyDescriptor(f, 'name');
            const length = Object.getOwnPropertyDescriptor(f, 'length');
            return [key, f.name === key, Object.getOwnPropertyNames(f), f.length,
                    [name.writable, name.enumerable, name.configurable],
                    [length.writable, length.enumerable, length.configurable],
                    Object.getPrototypeOf(f) === Function.prototype, typeof f,
                    String(f) === `function ${key}() {\n    [native code]\n}`, constructed,
                    await f.call({ not: 'used' }, 7), await f(), await f(1, 2)];
        }));
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(names)).await;
    assert_ok(&result);
    let shape = |name: &str| {
        json!([
            name,
            true,
            ["length", "name"],
            1,
            [false, false, true],
            [false, false, true],
            true,
            "function",
            true,
            "f is not a constructor",
            [name, 7],
            [name, null],
            [name, 1]
        ])
    };
    assert_eq!(
        result.value,
        Some(json!([shape("nul\u{0}name"), shape("search")]))
    );
}

/// Each binding of several namespaces reaches its own host function, by
/// name or called through another binding's reference.
#[tokio::test]
async fn bindings_of_several_namespaces_reach_their_own_functions() {
    let namespace = |global: &'static str, names: [&'static str; 3]| {
        names
            .into_iter()
            .fold(CodeBindingNamespace::new(global), |bindings, name| {
                bindings.function(
                    name,
                    move |args| async move { Ok(json!([global, name, args])) },
                )
            })
    };
    let program = r#"
        const calls = [alpha.f(1), alpha.g(2), alpha.h(3), beta.f(4), beta.g(5), beta.h(6),
                       gamma.f(7), gamma.g(8), gamma.h(9)];
        const { f } = beta;
        calls.push(f.call(alpha, 10));
        return await Promise.all(calls);
    "#;
    let request = CodeRunRequest::new(program)
        .binding(namespace("alpha", ["f", "g", "h"]))
        .binding(namespace("beta", ["h", "g", "f"]))
        .binding(
            namespace("gamma", ["g", "nul\0", "f"])
                .function("h", |args| async move { Ok(json!(["gamma", "h", args])) }),
        );
    let result = run_request(request).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            ["alpha", "f", 1],
            ["alpha", "g", 2],
            ["alpha", "h", 3],
            ["beta", "f", 4],
            ["beta", "g", 5],
            ["beta", "h", 6],
            ["gamma", "f", 7],
            ["gamma", "g", 8],
            ["gamma", "h", 9],
            ["beta", "f", 10]
        ]))
    );
}

/// A binding's C function tells its place by a 16-bit `magic`: past the
/// 32,768th, a binding is a closure instead, and every one still reaches
/// its own host function, with the same name and length.
#[tokio::test]
async fn bindings_past_what_a_magic_number_counts_reach_their_functions() {
    let names = (0..33_000).fold(CodeBindingNamespace::new("tools"), |names, i| {
        names.function(format!("t{i:05}"), move |args| async move {
            Ok(json!([i, args]))
        })
    });
    let program = r#"
        const picks = ['t00000', 't32767', 't32768', 't32999'];
        return await Promise.all(picks.map(async (name) =>
            [await tools[name](name), tools[name].name, tools[name].length]));
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(names)).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            [[0, "t00000"], "t00000", 1],
            [[32767, "t32767"], "t32767", 1],
            [[32768, "t32768"], "t32768", 1],
            [[32999, "t32999"], "t32999", 1]
        ]))
    );
}

#[tokio::test]
async fn arguments_json_cannot_carry_reject_without_dispatch() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let host = CodeBindingNamespace::new("tools").function("record", move |args| {
        counted.fetch_add(1, Ordering::SeqCst);
        async move { Ok(args) }
    });
    let program = r#"
        const cyclic: any = {}; cyclic.self = cyclic;
        const messages = [];
        for (const bad of [{ n: 10n }, cyclic, { f() {} }]) {
            try { await tools.record(bad); messages.push('dispatched'); }
            catch (e) { messages.push(`${e.name}: ${e.message}`); }
        }
        const after = await tools.record({ ok: true });
        return { messages, after };
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(host)).await;
    assert_ok(&result);
    let value = result.value.unwrap();
    let messages = value["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    for message in messages {
        let message = message.as_str().unwrap();
        assert!(message.contains("is not JSON-serialisable"), "{message}");
        assert!(message.starts_with("TypeError"), "{message}");
    }
    assert_eq!(value["after"], json!({"ok": true}));
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "only the valid call was dispatched"
    );
}

#[tokio::test]
async fn dates_cross_as_iso_strings_and_undefined_as_null() {
    let program = "return [await tools.echo(new Date(0)), await tools.echo()]";
    let result = run_request(CodeRunRequest::new(program).binding(tools())).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!(["1970-01-01T00:00:00.000Z", null]))
    );
}

#[tokio::test]
async fn primitive_arguments_and_results_cross_as_json() {
    // Primitives take a shorter path than objects on the way out.
    let program = r#"
        const sent = [0, -1.5, NaN, Infinity, "", "é\u0000\n\"", true, false, null];
        const back = [];
        for (const arg of sent) back.push(await tools.echo(arg));
        return back;
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(tools())).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            0,
            -1.5,
            null,
            null,
            "",
            "é\u{0}\n\"",
            true,
            false,
            null
        ]))
    );
}

#[tokio::test]
async fn a_binding_result_is_a_fresh_value_for_each_call() {
    let program = r#"
        const a = await tools.echo({list: [1]});
        const b = await tools.echo({list: [1]});
        a.list.push(2);
        return [a, b, a === b];
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(tools())).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([{"list": [1, 2]}, {"list": [1]}, false]))
    );
}

#[tokio::test]
async fn a_panicking_binding_rejects_the_call() {
    let host = CodeBindingNamespace::new("tools").function("boom", |_| async move {
        if true {
            panic!("binding bug");
        }
        Ok(json!(null))
    });
    let program = "try { await tools.boom(); } catch (e) { return e.message }";
    let result = run_request(CodeRunRequest::new(program).binding(host)).await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!("the binding panicked")));
}

#[tokio::test]
async fn calls_in_flight_are_capped() {
    let runtime = runtime_with(|c| {
        c.max_pending_calls(3);
    });
    let host = CodeBindingNamespace::new("tools").function("slow", |args| async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Ok(args)
    });
    let program = r#"
        const results = await Promise.allSettled([1, 2, 3, 4].map((n) => tools.slow(n)));
        return results.map((r) => r.status === 'fulfilled' ? r.value : r.reason.message);
    "#;
    let result = runtime
        .run(CodeRunRequest::new(program).binding(host))
        .await
        .unwrap();
    assert_ok(&result);
    let value = result.value.unwrap();
    assert_eq!(value[0], json!(1));
    assert!(
        value[3].as_str().unwrap().contains("max_pending_calls"),
        "{value}"
    );
}

#[tokio::test]
async fn late_results_are_dropped_and_do_not_reach_later_runs() {
    let runtime = runtime_with(|c| {
        c.wall_clock(Duration::from_millis(1000));
    });
    let host = CodeBindingNamespace::new("tools")
        .function("late", |_| async move {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            Ok(json!("late result"))
        })
        .function("nap", |args| async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok(args)
        });
    let first = runtime
        .run(CodeRunRequest::new("return await tools.late()").binding(host.clone()))
        .await
        .unwrap();
    assert_failure(&first, FailureKind::Timeout, "wall-clock");
    // The first run's call settles while this run awaits calls of its own
    // with the same ids.
    let program = r#"
        const seen = [];
        for (let i = 0; i < 15; i++) seen.push(await tools.nap(i));
        return seen;
    "#;
    let second = runtime
        .run(CodeRunRequest::new(program).binding(host))
        .await
        .unwrap();
    assert_ok(&second);
    assert_eq!(second.value, Some(json!((0..15).collect::<Vec<_>>())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_runs_never_mix_results() {
    let mut handles = Vec::new();
    for i in 0..200 {
        handles.push(tokio::spawn(async move {
            let host = CodeBindingNamespace::new("tools").function("id", move |args| async move {
                tokio::time::sleep(Duration::from_millis(5)).await;
                Ok(json!({ "run": i, "echo": args }))
            });
            let program =
                format!("const r = await tools.id({i}); console.log('run', {i}); return r;");
            let result = shared()
                .run(CodeRunRequest::new(program).binding(host))
                .await
                .unwrap();
            (i, result)
        }));
    }
    for handle in handles {
        let (i, result) = handle.await.unwrap();
        assert_ok(&result);
        assert_eq!(result.value, Some(json!({ "run": i, "echo": i })));
        assert_eq!(result.logs, vec![format!("run {i}")]);
    }
}

#[tokio::test]
async fn a_binding_that_panics_before_returning_its_future_rejects_the_call() {
    let host = CodeBindingNamespace::new("tools").function("boom", |_| {
        if true {
            panic!("binding bug");
        }
        async move { Ok(json!(null)) }
    });
    let program = "try { await tools.boom(); } catch (e) { return e.message }";
    let result = run_request(CodeRunRequest::new(program).binding(host)).await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!("the binding panicked")));
}

#[tokio::test]
async fn calls_that_settle_at_once_and_later_keep_their_own_order() {
    let host = CodeBindingNamespace::new("tools")
        .function("now", |args| async move { Ok(args) })
        .function("later", |args| async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            Ok(args)
        });
    let program = r#"
        const order = [];
        const calls = [
            tools.later('later').then((v) => order.push(v)),
            tools.now('now 1').then((v) => order.push(v)),
            tools.now('now 2').then((v) => order.push(v)),
        ];
        await Promise.all(calls);
        order.push(await tools.now('after'));
        return order;
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(host)).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!(["now 1", "now 2", "later", "after"]))
    );
}

/// A call the binding answers at once settles only once nothing else is
/// runnable, like one answered later: what the program sees never depends
/// on how soon a binding answered (which a replay could not repeat).
#[tokio::test]
async fn a_call_answered_at_once_settles_after_the_jobs_already_runnable() {
    let program = r#"
        const order = [];
        const call = tools.echo('call').then((v) => order.push(v));
        Promise.resolve()
            .then(() => order.push('tick 1'))
            .then(() => order.push('tick 2'))
            .then(() => order.push('tick 3'));
        await call;
        return order;
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(tools())).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!(["tick 1", "tick 2", "tick 3", "call"]))
    );
}

#[tokio::test]
async fn calls_answered_at_once_mix_with_pending_ones_and_rejections() {
    let host = CodeBindingNamespace::new("tools")
        .function("now", |args| async move { Ok(args) })
        .function("fail", |args| async move {
            Err(format!("no {}", args["n"]).into())
        })
        .function("later", |args| async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            Ok(args)
        });
    let program = r#"
        const settled = await Promise.allSettled([
            tools.now(1), tools.later(2), tools.fail({ n: 3 }), tools.now(4), tools.later(5),
        ]);
        const all = settled.map((r) => r.status === 'fulfilled' ? r.value : r.reason.message);
        let total = 0;
        for (let i = 0; i < 300; i++) {
            total += await (i % 50 === 0 ? tools.later(i) : tools.now(i));
            if (i % 100 === 1) {
                try { await tools.fail({ n: i }); } catch (e) { all.push(e instanceof Error, e.message); }
            }
        }
        all.push(total);
        return all;
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(host)).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            1, 2, "no 3", 4, 5, true, "no 1", true, "no 101", true, "no 201", 44850
        ]))
    );
}

#[tokio::test]
async fn results_at_the_edges_of_small_integers_arrive_as_the_same_numbers() {
    let values = json!([
        0,
        7,
        -7,
        2147483647,
        2147483648_u64,
        -2147483648,
        -2147483649_i64,
        -0.0,
        1.5,
        1e21
    ]);
    let host = CodeBindingNamespace::new("tools").function("at", move |i| {
        let value = values[i.as_u64().unwrap_or(0) as usize].clone();
        async move { Ok(value) }
    });
    let program = r#"
        const out = [];
        for (let i = 0; i < 10; i++) {
            const v = await tools.at(i);
            out.push(Object.is(v, -0) ? '-0' : [typeof v, v + 1]);
        }
        return out;
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(host)).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            ["number", 1],
            ["number", 8],
            ["number", -6],
            ["number", 2147483648_u64],
            ["number", 2147483649_u64],
            ["number", -2147483647],
            ["number", -2147483648],
            "-0",
            ["number", 2.5],
            ["number", 1e21]
        ]))
    );
}

/// Plain data (sent as a tape of its values, which the host reads by
/// JSON's rules) arrives as QuickJS's own `JSON.stringify` of it reads:
/// `undefined` and non-finite elements as `null`, `undefined` properties
/// left out, `-0` as `0`, integers past 2^53 as their text, Latin-1 and
/// UTF-16 strings, a lone surrogate as U+FFFD, keys in any order, shapes
/// met again.
#[tokio::test]
async fn plain_data_arguments_arrive_as_their_json_reads() {
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = received.clone();
    let tools = CodeBindingNamespace::new("tools").function("take", move |args| {
        kept.lock().unwrap().push(args);
        async { Ok(json!(null)) }
    });
    let program = r#"
        const value = {
            numbers: [undefined, null, true, false, 0, -0, 1.5, -2.5e-7, 1e21, 2 ** 60,
                -(2 ** 60), 2 ** 53, 123456789012, NaN, -Infinity, 2147483647, -2147483648],
            text: ['', 'plain', 'é ü ß', 'ÿ\u0000\u001f"\\', '日本語', '\ud800 lone', 'pair 😀',
                'x'.repeat(300)],
            records: [{ a: 1, b: 'x' }, { a: 2, b: 'y' }, { a: 3, b: undefined }, {}, {},
                { 2: 'two', 1: 'one', z: 0, '': 'empty', 'key with space': 1, 'ключ': 2 },
                { a: 4, b: 'z' }],
            nested: [[[[]]], { deep: { deeper: { deepest: [1] } } }],
            skipped: undefined,
        };
        await tools.take(value);
        await tools.take([value.records, value.records]);
        // QuickJS's own JSON.stringify (an indent given as a Number object
        // takes it past the native one).
        return [JSON.stringify(value, undefined, new Number(0)),
            JSON.stringify([value.records, value.records], undefined, new Number(0))];
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(tools)).await;
    assert_ok(&result);
    let texts = result.value.expect("the texts");
    let received = received.lock().unwrap();
    assert_eq!(received.len(), 2);
    for (text, got) in texts
        .as_array()
        .expect("two texts")
        .iter()
        .zip(received.iter())
    {
        let text = text.as_str().expect("a text").replace("\\ud800", "\\ufffd");
        let expected: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(got, &expected);
    }
}

/// An argument of plain data over `max_value_bytes` of JSON is refused,
/// and the program can catch the refusal.
#[tokio::test]
async fn a_plain_argument_over_the_value_cap_is_refused() {
    let runtime = runtime_with(|c| {
        c.max_value_bytes(1000);
    });
    let program = "
        const refusals = [];
        for (const arg of [['x'.repeat(2000)], [{ k: 'é'.repeat(600) }], Array(400).fill(12345)]) {
            try { await tools.echo(arg); refusals.push('sent'); }
            catch (e) { refusals.push(String(e.message)); }
        }
        refusals.push(JSON.stringify(await tools.echo(['x'.repeat(900)])).length);
        return refusals;
    ";
    let result = runtime
        .run(CodeRunRequest::new(program).binding(tools()))
        .await
        .unwrap();
    assert_ok(&result);
    let refusals = result.value.expect("the refusals");
    let refusals = refusals.as_array().expect("a list");
    for refusal in &refusals[..3] {
        let refusal = refusal.as_str().expect("a message");
        assert!(
            refusal.contains("more than config.max_value_bytes (1000)"),
            "{refusal}"
        );
    }
    assert_eq!(refusals[3], json!(904));
}

/// Plain data nested to the renderer's bound (200 levels) is sent as a
/// tape, which the host reads and renders on a stack of its own; past the
/// bound it is sent as JSON. Either way it arrives whole.
#[tokio::test]
async fn deeply_nested_plain_arguments_arrive_whole() {
    let program = "
        const lengths = [];
        for (const depth of [17, 200, 201]) {
            let a = 1; for (let i = 0; i < depth; i++) a = [a];
            let o = 1; for (let i = 0; i < depth; i++) o = { k: o, s: 'é' };
            lengths.push(JSON.stringify(await tools.echo(a)).length);
            lengths.push(JSON.stringify(await tools.echo(o)).length);
        }
        return lengths;
    ";
    let result = run_request(CodeRunRequest::new(program).binding(tools())).await;
    assert_ok(&result);
    let object = |depth: usize| 1 + depth * "{\"k\":,\"s\":\"é\"}".chars().count();
    assert_eq!(
        result.value,
        Some(json!([35, object(17), 401, object(200), 403, object(201)]))
    );
}
