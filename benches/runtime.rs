//! Criterion benches of the runtime's library paths, each against a
//! baseline measured in the same run:
//! - `cold_run`: `return 1 + 1` end to end (fresh instance per run): the same
//!   source every time (its transform is cached after the first run), and a
//!   new source every time (parsed on every run; having no type syntax, it
//!   then runs as written), and the same source given a registry of 100
//!   tools it does not call;
//! - `binding_round_trip`: 1,000 sequential awaited calls in one run, against
//!   the same loop awaiting an already-resolved promise;
//! - `transform`: the TypeScript front end alone on `return 1 + 1` (parse
//!   and check: it runs as written) and on a typical 20-line typed program
//!   (parse, strip types, print with a source map);
//! - `fib27`: CPU-bound JavaScript in the sandbox with fuel metering on and
//!   off, against QuickJS compiled natively (rquickjs) running the same
//!   source;
//! - `abort_latency`: from firing an abort to the result of a spinning run;
//! - `durable_100_calls`: a program making 100 binding calls, run live with
//!   recording on, against replaying its record (the ledger answers every
//!   call); the continuation of the same run interrupted at a 101st call is
//!   written to `target/criterion/durable_100_calls/continuation_bytes`;
//! - `returned_values`: returning plain data (ten 100 KB strings, 10,000
//!   numbers, 2,000 small nested objects): time, and the fuel per byte of
//!   its JSON (deterministic, so measured once), against the same program
//!   returning only `JSON.stringify(value, undefined, new Number(0)).length`
//!   (QuickJS's own JSON writer, which an indent given as an object still
//!   takes: one of zero writes the same text) and against building the
//!   value alone; and the
//!   fuel per byte of the same value passed to a binding, received from
//!   one, and printed with `console.log` (per byte of its line); the fuel
//!   figures are written to `target/criterion/returned_values/fuel.json`.

#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented pub fn"
)]

use coderun_runtime::{
    AbortController, CodeBindingNamespace, CodeRunRequest, CodeRuntime, RuntimeConfig,
    WasmCodeRuntime,
};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::time::{Duration, Instant};

const FIB: &str = "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }";

/// A program the size a model typically writes: types, a helper, a loop,
/// array methods, a log line.
const TYPICAL: &str = r#"interface File { name: string; size: number; tags?: string[] }
type Summary = { count: number; total: number; largest: string | null };

function summarise(files: File[]): Summary {
  let total = 0;
  let largest: File | null = null;
  for (const file of files) {
    total += file.size;
    if (largest === null || file.size > largest.size) largest = file;
  }
  return { count: files.length, total, largest: largest?.name ?? null };
}

const files: File[] = [];
for (let i = 0; i < 50; i++) {
  files.push({ name: `report-${i}.pdf`, size: (i * 7919) % 1000, tags: i % 3 === 0 ? ["q3"] : undefined });
}
const big = files.filter((f) => f.size > 500).map((f) => f.name);
console.log(`${big.length} of ${files.length} are large`);
return { summary: summarise(files), big: big.slice(0, 5) };
"#;

/// W6 of `make bench-peers`: the typical agent program (≈ 40 lines of typed
/// TypeScript, 10 binding calls, 1,000 items).
const AGENT: &str = include_str!("peers/programs/typical.ts");

fn runtime_with(configure: impl FnOnce(&mut RuntimeConfig)) -> WasmCodeRuntime {
    let mut config = RuntimeConfig::new();
    config.max_concurrent_runs(16);
    configure(&mut config);
    WasmCodeRuntime::new(config).expect("runtime")
}

fn runtime() -> WasmCodeRuntime {
    runtime_with(|_| {})
}

fn tokio() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio")
}

fn cold_run(c: &mut Criterion) {
    let rt = tokio();
    let runtime = runtime();
    let mut group = c.benchmark_group("cold_run");
    group.bench_function("return_1_plus_1", |b| {
        b.to_async(&rt).iter(|| async {
            let result = runtime
                .run(CodeRunRequest::new("return 1 + 1"))
                .await
                .expect("run");
            assert_eq!(result.value, Some(json!(2)));
        })
    });
    let mut n = 0u64;
    group.bench_function("return_1_plus_1_new_source", |b| {
        b.to_async(&rt).iter(|| {
            n += 1;
            let request = CodeRunRequest::new(format!("return 1 + 1 // {n}"));
            let runtime = &runtime;
            async move {
                let result = runtime.run(request).await.expect("run");
                assert_eq!(result.value, Some(json!(2)));
            }
        })
    });
    // A registry of 100 tools, none of them called: what every Code Mode
    // run in front of a large registry pays before its program starts.
    let registry = (0..100).fold(CodeBindingNamespace::new("tools"), |tools, i| {
        tools.function(format!("tool_{i:03}"), |args| async move { Ok(args) })
    });
    group.bench_function("return_1_plus_1_100_tools", |b| {
        b.to_async(&rt).iter(|| async {
            let request = CodeRunRequest::new("return 1 + 1").binding(registry.clone());
            let result = runtime.run(request).await.expect("run");
            assert_eq!(result.value, Some(json!(2)));
        })
    });
    group.bench_function("typical_program", |b| {
        b.to_async(&rt).iter(|| async {
            let result = runtime
                .run(CodeRunRequest::new(TYPICAL))
                .await
                .expect("run");
            assert!(result.error.is_none(), "{:?}", result.error);
        })
    });
    group.finish();
}

fn transform(c: &mut Criterion) {
    let config = coderun_runtime::RuntimeConfig::default();
    let mut group = c.benchmark_group("transform");
    group.bench_function("return_1_plus_1", |b| {
        b.iter(|| {
            coderun_runtime::__internals::transform("return 1 + 1", &config).expect("transform")
        })
    });
    group.bench_function("typical_program", |b| {
        b.iter(|| coderun_runtime::__internals::transform(TYPICAL, &config).expect("transform"))
    });
    group.bench_function("agent_program", |b| {
        b.iter(|| coderun_runtime::__internals::transform(AGENT, &config).expect("transform"))
    });
    group.bench_function("agent_program_full_transform", |b| {
        b.iter(|| coderun_runtime::__internals::transform_fully(AGENT, &config).expect("transform"))
    });
    group.finish();
}

fn binding_round_trip(c: &mut Criterion) {
    let rt = tokio();
    let runtime = runtime();
    let tools = CodeBindingNamespace::new("tools").function("echo", |args| async move { Ok(args) });
    let mut group = c.benchmark_group("binding_round_trip_1000");
    group.bench_function("binding_calls", |b| {
        b.to_async(&rt).iter(|| async {
            let request = CodeRunRequest::new(
                "let s = 0; for (let i = 0; i < 1000; i++) s += await tools.echo(i); return s",
            )
            .binding(tools.clone());
            let result = runtime.run(request).await.expect("run");
            assert_eq!(result.value, Some(json!(499500)));
        })
    });
    group.bench_function("baseline_resolved_promises", |b| {
        b.to_async(&rt).iter(|| async {
            let request = CodeRunRequest::new(
                "let s = 0; for (let i = 0; i < 1000; i++) s += await Promise.resolve(i); return s",
            )
            .binding(tools.clone());
            let result = runtime.run(request).await.expect("run");
            assert_eq!(result.value, Some(json!(499500)));
        })
    });
    group.finish();
}

fn fib27(c: &mut Criterion) {
    let rt = tokio();
    let runtime = runtime();
    let mut group = c.benchmark_group("fib27");
    group.sample_size(10);
    let unmetered = runtime_with(|c| {
        c.fuel_metering(false);
    });
    for (name, runtime) in [
        ("coderun_wasm", &runtime),
        ("coderun_wasm_fuel_off", &unmetered),
    ] {
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                let result = runtime
                    .run(CodeRunRequest::new(format!("{FIB}\nreturn fib(27)")))
                    .await
                    .expect("run");
                assert_eq!(result.value, Some(json!(196418)));
            })
        });
    }
    group.bench_function("native_quickjs", |b| {
        b.iter(|| {
            let rt = rquickjs::Runtime::new().expect("quickjs");
            let ctx = rquickjs::Context::full(&rt).expect("context");
            let n: i32 = ctx.with(|ctx| ctx.eval(format!("{FIB}\nfib(27)")).expect("eval"));
            assert_eq!(n, 196418);
        })
    });
    group.finish();
}

/// Time from firing the abort signal to the run's result, while the program
/// spins in `for (;;) {}` (the report sets it against `cold_run`).
fn abort_latency(c: &mut Criterion) {
    let rt = tokio();
    let runtime = runtime();
    let mut group = c.benchmark_group("abort_latency");
    group.sample_size(20);
    group.bench_function("abort_spinning_program", |b| {
        b.to_async(&rt).iter_custom(|iters| {
            let runtime = runtime.clone();
            async move {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let controller = AbortController::new();
                    let request = CodeRunRequest::new("for (;;) {}").signal(controller.signal());
                    let runtime = runtime.clone();
                    let run = tokio::spawn(async move { runtime.run(request).await });
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    let fired = Instant::now();
                    controller.abort("bench");
                    let result = run.await.expect("join").expect("run");
                    total += fired.elapsed();
                    assert!(result.error.is_some());
                }
                total
            }
        })
    });
    group.finish();
}

/// 100 calls whose results the program folds into its value.
const HUNDRED_CALLS: &str = "let n = 0;\n\
    for (let i = 0; i < 100; i++) { const r = await tools.get({ id: i }); n += r.name.length; }\n\
    if (globalThis.ask) await tools.ask({ question: `delete ${n}?` });\n\
    return n;";

/// Where criterion writes (and report.py reads) the results of `group`,
/// created: for the figures a bench writes itself.
fn criterion_dir(group: &str) -> std::path::PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
        std::path::PathBuf::from,
    );
    let dir = target.join("criterion").join(group);
    std::fs::create_dir_all(&dir).expect("criterion's directory");
    dir
}

fn durable(c: &mut Criterion) {
    let rt = tokio();
    let runtime = runtime();
    let tools = || {
        CodeBindingNamespace::new("tools")
            .function("get", |args| async move {
                Ok(json!({"id": args["id"], "name": format!("item-{}", args["id"]), "tags": ["a", "b"]}))
            })
            .function("ask", |args| async move {
                Err(coderun_runtime::BindingError::interrupt(args))
            })
    };
    let recorded = rt.block_on(async {
        let mut request = CodeRunRequest::new(HUNDRED_CALLS).binding(tools());
        request.record = true;
        let result = runtime.run(request).await.expect("run");
        assert!(result.is_ok(), "{:?}", result.error);
        *result.record.expect("a record")
    });
    assert_eq!(recorded.calls.len(), 100);
    // The continuation of the same run, interrupted after its 100 calls.
    let continuation_bytes = rt.block_on(async {
        let program = format!("globalThis.ask = true;\n{HUNDRED_CALLS}");
        let mut request = CodeRunRequest::new(program).binding(tools());
        request.record = true;
        let result = runtime.run(request).await.expect("run");
        let interrupted = result.interrupted.expect("interrupted");
        serde_json::to_string(&interrupted.continuation)
            .expect("serialises")
            .len()
    });
    let dir = criterion_dir("durable_100_calls");
    std::fs::write(
        dir.join("continuation_bytes"),
        continuation_bytes.to_string(),
    )
    .expect("writes the size");
    let mut group = c.benchmark_group("durable_100_calls");
    group.bench_function("live_recorded", |b| {
        b.to_async(&rt).iter(|| async {
            let mut request = CodeRunRequest::new(HUNDRED_CALLS).binding(tools());
            request.record = true;
            let result = runtime.run(request).await.expect("run");
            assert!(result.is_ok(), "{:?}", result.error);
        })
    });
    group.bench_function("replay", |b| {
        b.to_async(&rt).iter(|| async {
            let result = runtime
                .run(CodeRunRequest::replay(recorded.clone()))
                .await
                .expect("run");
            assert!(result.is_ok(), "{:?}", result.error);
        })
    });
    group.finish();
}

/// Plain data a program returns, built the same way in every variant.
const RETURNED: [(&str, &str); 3] = [
    (
        "strings",
        "const s = 'x'.repeat(100000); const value = [s, s, s, s, s, s, s, s, s, s];",
    ),
    (
        "numbers",
        "const value = []; for (let i = 0; i < 10000; i++) value.push(i % 7 ? i * 1.5 : i);",
    ),
    (
        "objects",
        "const value = []; for (let i = 0; i < 2000; i++) value.push({ id: i, name: `item-${i}`, \
         tags: ['a', 'b'], owner: { login: `user${i % 10}`, admin: i % 2 === 0 } });",
    ),
];

/// The baseline: QuickJS's own `JSON.stringify` of the value. An indent
/// given as a Number object takes it past the guest's native one
/// (json.rs), and an indent of zero writes the same text.
const STRINGIFIED: &str = "return JSON.stringify(value, undefined, new Number(0)).length;";

fn returned_values(c: &mut Criterion) {
    let rt = tokio();
    let runtime = runtime();
    let run = |request: CodeRunRequest| {
        rt.block_on(async {
            let result = runtime.run(request).await.expect("run");
            assert!(result.is_ok(), "{:?}", result.error);
            result
        })
    };
    let fuel = |program: String| {
        let result = run(CodeRunRequest::new(program));
        (result.fuel_consumed, result.value)
    };
    let mut figures = serde_json::Map::new();
    for (name, build) in RETURNED {
        let (built, _) = fuel(format!("{build} return value.length;"));
        let (stringified, _) = fuel(format!("{build} {STRINGIFIED}"));
        let (returned, value) = fuel(format!("{build} return value;"));
        let value = value.expect("a value");
        let bytes = serde_json::to_string(&value).expect("JSON").len() as u64;
        // The other ways plain data crosses: a binding's argument (its
        // JSON), a binding's result (parsed into a value), a console line
        // (its display text, per byte of the line).
        let given = value.clone();
        let tools = CodeBindingNamespace::new("tools")
            .function("take", |_| async { Ok(json!(null)) })
            .function("give", move |_| {
                let given = given.clone();
                async move { Ok(given) }
            });
        let with_tools = |program: String| {
            run(CodeRunRequest::new(program).binding(tools.clone())).fuel_consumed
        };
        let passed = with_tools(format!(
            "{build} await tools.take(value); return value.length;"
        ));
        let taken_nothing = with_tools("await tools.take(null); return 0;".into());
        let received = with_tools("const value = await tools.give(); return value.length;".into());
        let logged = run(CodeRunRequest::new(format!(
            "{build} console.log(value); return value.length;"
        )));
        let line = logged
            .logs
            .iter()
            .map(|line| line.text.len())
            .sum::<usize>() as u64;
        figures.insert(
            name.into(),
            json!({
                "bytes": bytes,
                "fuel_per_byte": (returned - built) as f64 / bytes as f64,
                "stringify_fuel_per_byte": (stringified - built) as f64 / bytes as f64,
                "argument_fuel_per_byte": (passed - built) as f64 / bytes as f64,
                "result_fuel_per_byte": (received - taken_nothing) as f64 / bytes as f64,
                "logged_bytes": line,
                "logged_fuel_per_byte": (logged.fuel_consumed - built) as f64 / line as f64,
                "run_fuel": returned,
            }),
        );
    }
    let dir = criterion_dir("returned_values");
    std::fs::write(
        dir.join("fuel.json"),
        serde_json::to_string_pretty(&figures).expect("JSON"),
    )
    .expect("writes the fuel figures");
    let mut group = c.benchmark_group("returned_values");
    for (name, build) in RETURNED {
        for (variant, tail) in [("returned", "return value;"), ("stringified", STRINGIFIED)] {
            let program = format!("{build} {tail}");
            group.bench_function(format!("{name}_{variant}"), |b| {
                b.to_async(&rt).iter(|| async {
                    let result = runtime
                        .run(CodeRunRequest::new(program.clone()))
                        .await
                        .expect("run");
                    assert!(result.is_ok(), "{:?}", result.error);
                })
            });
        }
    }
    group.finish();
}

/// Issue 23's rule, host work for one run cannot delay other runs,
/// measured: `return 1` through `run_code`, one run after another, alone
/// and then while 10 runs call `tools.$describe` with a 1 MB name in a
/// loop against 10,000 tools. Writes the latencies (p50, p99) of both to
/// `target/criterion/discovery_under_load/figures.json`.
fn discovery_under_load(_: &mut Criterion) {
    use coderun::code_mode::{
        AbortController as ToolAbort, Mode, Tool, ToolCall, ToolRegistry, ToolResult,
    };
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    const RUNS: usize = 300;
    const DESCRIBERS: usize = 10;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio");
    let mut registry = ToolRegistry::new();
    registry.mode(Mode::Code).runtime(Arc::new(runtime()));
    for i in 0..10_000 {
        let tool = Tool::new(
            format!("tool_{i:05}"),
            "A tool.",
            json!({"type": "object"}),
            |_, _| async { ToolResult::text("") },
        );
        registry.register(tool).expect("unique names");
    }
    let run_code = |registry: ToolRegistry, program: String| async move {
        let call = ToolCall::new("bench", "run_code", json!({ "code": program }));
        registry.execute(call, ToolAbort::new().signal()).await
    };
    let latencies = |registry: &ToolRegistry| {
        rt.block_on(async {
            let mut samples = Vec::with_capacity(RUNS);
            for _ in 0..RUNS {
                let start = Instant::now();
                let result = run_code(registry.clone(), "return 1".into()).await;
                assert!(!result.is_error, "{result:?}");
                samples.push(start.elapsed().as_secs_f64() * 1000.0);
            }
            samples.sort_by(f64::total_cmp);
            let at = |p: f64| samples[((p * RUNS as f64).ceil() as usize).clamp(1, RUNS) - 1];
            json!({ "p50_ms": at(0.5), "p99_ms": at(0.99) })
        })
    };
    let alone = latencies(&registry);
    let stop = Arc::new(AtomicBool::new(false));
    let describers: Vec<_> = (0..DESCRIBERS)
        .map(|_| {
            let (registry, stop) = (registry.clone(), Arc::clone(&stop));
            let program = "const name = 'x'.repeat(1 << 20); let n = 0; \
                           for (let i = 0; i < 20; i++) { try { await tools.$describe(name); } \
                           catch { n++; } } return n;"
                .to_owned();
            rt.spawn(async move {
                let mut runs = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    run_code(registry.clone(), program.clone()).await;
                    runs += 1;
                }
                runs
            })
        })
        .collect();
    let loaded = latencies(&registry);
    stop.store(true, Ordering::Relaxed);
    let describing_runs: u64 = rt.block_on(async {
        let mut total = 0;
        for describer in describers {
            total += describer.await.expect("a describer");
        }
        total
    });
    let figures = json!({
        "alone": alone,
        "loaded": loaded,
        "describers": DESCRIBERS,
        "describing_runs": describing_runs,
    });
    std::fs::write(
        criterion_dir("discovery_under_load").join("figures.json"),
        serde_json::to_string_pretty(&figures).expect("JSON"),
    )
    .expect("writes the figures");
}

/// Ten `fetch`es of a small JSON document from a loopback server, one after
/// another, in one run; against the same ten requests made from Rust with
/// reqwest (one client, its connections pooled), in the same run: what the
/// sandbox, its policy and its records add to a request.
fn egress(c: &mut Criterion) {
    use coderun_runtime::NetworkPolicy;

    let rt = tokio();
    // The client below is built before any fetch installs ring's.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (origin, _server) = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let origin = format!("http://{}", listener.local_addr().expect("an address"));
        let app = axum::Router::new().route(
            "/items",
            axum::routing::get(|| async {
                (
                    [("content-type", "application/json")],
                    r#"{"items":[{"id":1,"name":"a"},{"id":2,"name":"b"}]}"#,
                )
            }),
        );
        let server = tokio::spawn(async move { axum::serve(listener, app).await });
        (origin, server)
    });
    let runtime = runtime_with(|config| {
        config.network(
            NetworkPolicy::new()
                .allow(origin.as_str())
                .allow_loopback(true),
        );
    });
    let program = format!(
        "let n = 0; for (let i = 0; i < 10; i++) {{ \
         n += (await (await fetch('{origin}/items')).json()).items.length; }} return n;"
    );
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("a client");
    let mut group = c.benchmark_group("egress_10_fetches");
    group.bench_function("fetch_in_a_program", |b| {
        b.to_async(&rt).iter(|| async {
            let result = runtime
                .run(CodeRunRequest::new(program.clone()))
                .await
                .expect("run");
            assert_eq!(result.value, Some(json!(20)), "{:?}", result.error);
        })
    });
    group.bench_function("reqwest_from_rust", |b| {
        b.to_async(&rt).iter(|| async {
            let mut n = 0;
            for _ in 0..10 {
                let body: serde_json::Value = serde_json::from_slice(
                    &client
                        .get(format!("{origin}/items"))
                        .send()
                        .await
                        .expect("sent")
                        .bytes()
                        .await
                        .expect("read"),
                )
                .expect("JSON");
                n += body["items"].as_array().map_or(0, Vec::len);
            }
            assert_eq!(n, 20);
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    discovery_under_load,
    durable,
    returned_values,
    cold_run,
    binding_round_trip,
    transform,
    fib27,
    abort_latency,
    egress
);
criterion_main!(benches);
