//! A soak test: many mixed runs through one runtime, every outcome checked,
//! the process's resident memory sampled as it goes and its slope reported
//! (bytes per run, fitted over the runs after a warm-up).
//!
//! `cargo test --test soak` is the short pass CI runs; `make soak` runs
//! `CODERUN_SOAK_RUNS` (default 10,000) in the release profile. The slope is
//! a measurement, not an assertion: this machine's other work moves it.

use std::time::Duration;

use coderun_runtime::{
    AbortController, CodeBindingNamespace, CodeRunRequest, CodeRunResult, CodeRuntime, FailureKind,
    RuntimeConfig, WasmCodeRuntime,
};
use futures::StreamExt as _;
use serde_json::json;

const DEFAULT_RUNS: usize = 400;
const CONCURRENCY: usize = 4;

/// One kind of run in the mix, and how it must end.
struct Mix {
    name: &'static str,
    program: &'static str,
    expect: Option<FailureKind>,
    /// Fire the abort signal after this long.
    abort_after: Option<Duration>,
}

const MIX: &[Mix] = &[
    Mix {
        name: "value",
        program: "return { a: [1, 2, 3], s: 'x'.repeat(100) }",
        expect: None,
        abort_after: None,
    },
    Mix {
        name: "typed program",
        program: "type T = { n: number };\nconst t: T = { n: 2 };\nreturn t.n * 21",
        expect: None,
        abort_after: None,
    },
    Mix {
        name: "logs",
        program: "for (let i = 0; i < 50; i++) console.log('line', i, { i }); return 1",
        expect: None,
        abort_after: None,
    },
    Mix {
        name: "bindings",
        program: "const r = await Promise.all([tools.echo(1), tools.slow(2), tools.echo({ a: 3 })]); return r",
        expect: None,
        abort_after: None,
    },
    Mix {
        name: "rejection",
        program: "try { await tools.fail() } catch (e) { return e.message }",
        expect: None,
        abort_after: None,
    },
    Mix {
        name: "exception",
        program: "throw new TypeError('boom')",
        expect: Some(FailureKind::Exception),
        abort_after: None,
    },
    Mix {
        name: "syntax error",
        program: "const = ;",
        expect: Some(FailureKind::Exception),
        abort_after: None,
    },
    Mix {
        name: "fuel",
        program: "for (;;) {}",
        expect: Some(FailureKind::Timeout),
        abort_after: None,
    },
    Mix {
        name: "memory",
        program: "const a = []; for (;;) a.push(new Array(1e5).fill(1))",
        expect: Some(FailureKind::WorkerExit),
        abort_after: None,
    },
    Mix {
        name: "recursion",
        program: "function f() { return f() } try { f() } catch (e) { return String(e) }",
        expect: None,
        abort_after: None,
    },
    Mix {
        name: "abort",
        program: "await tools.hang()",
        expect: Some(FailureKind::Abort),
        abort_after: Some(Duration::from_millis(5)),
    },
    Mix {
        name: "too deep",
        program: "return ((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))",
        expect: Some(FailureKind::Exception),
        abort_after: None,
    },
    Mix {
        name: "big output",
        program: "console.log('x'.repeat(1 << 20)); return 'y'.repeat(1 << 20)",
        expect: None,
        abort_after: None,
    },
];

fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Least-squares slope of `samples` (run index, bytes).
fn slope(samples: &[(f64, f64)]) -> f64 {
    let n = samples.len() as f64;
    let (sx, sy) = samples
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let (num, den) = samples.iter().fold((0.0, 0.0), |(num, den), (x, y)| {
        (num + (x - mx) * (y - my), den + (x - mx) * (x - mx))
    });
    if den == 0.0 { 0.0 } else { num / den }
}

fn check(mix: &Mix, result: &CodeRunResult) -> Result<(), String> {
    match (&result.error, mix.expect) {
        (None, None) => Ok(()),
        (Some(error), Some(kind)) if error.kind == kind => Ok(()),
        (error, expect) => Err(format!("{}: expected {expect:?}, got {error:?}", mix.name)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_mixed_runs_through_one_runtime() {
    let runs: usize = std::env::var("CODERUN_SOAK_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_RUNS);
    let mut config = RuntimeConfig::new();
    config
        .fuel(1_000_000_000)
        .max_memory_bytes(32 * 1024 * 1024)
        .max_nesting_depth(30)
        .max_concurrent_runs(CONCURRENCY * 2);
    let runtime = WasmCodeRuntime::new(config).expect("the runtime builds");
    let tools = CodeBindingNamespace::new("tools")
        .function("echo", |x| async move { Ok(x) })
        .function("slow", |x| async move {
            tokio::time::sleep(Duration::from_millis(1)).await;
            Ok(x)
        })
        .function("fail", |_| async move { Err("nope".into()) })
        .function("hang", |_| async move { std::future::pending().await });
    let runtime = &runtime;
    let tools = &tools;

    let warm_up = runs / 5;
    let mut samples = Vec::new();
    let mut failures = Vec::new();
    let mut done = 0usize;
    let mut stream = futures::stream::iter(0..runs)
        .map(|i| async move {
            let mix = &MIX[i % MIX.len()];
            let mut request = CodeRunRequest::new(mix.program).binding(tools.clone());
            let controller = AbortController::new();
            if mix.abort_after.is_some() {
                request = request.signal(controller.signal());
            }
            let run = runtime.run(request);
            let result = match mix.abort_after {
                Some(after) => {
                    let abort = async {
                        tokio::time::sleep(after).await;
                        controller.abort("soak abort");
                        std::future::pending::<()>().await
                    };
                    tokio::select! { result = run => result, () = abort => unreachable!() }
                }
                None => run.await,
            };
            (mix, result.expect("no misuse"))
        })
        .buffer_unordered(CONCURRENCY);
    while let Some((mix, result)) = stream.next().await {
        if let Err(why) = check(mix, &result) {
            failures.push(why);
        }
        done += 1;
        if done >= warm_up
            && done.is_multiple_of(20)
            && let Some(bytes) = resident_bytes()
        {
            samples.push((done as f64, bytes as f64));
        }
    }
    let alive = runtime
        .run(CodeRunRequest::new("return 'alive'"))
        .await
        .unwrap();
    assert_eq!(alive.value, Some(json!("alive")));
    if samples.len() >= 2 {
        let first = samples[0].1 / (1024.0 * 1024.0);
        let last = samples[samples.len() - 1].1 / (1024.0 * 1024.0);
        eprintln!(
            "soak: {runs} runs; resident {first:.1} MiB after warm-up, {last:.1} MiB at the end; \
             slope {:.1} bytes per run over {} samples",
            slope(&samples),
            samples.len()
        );
    }
    assert!(
        failures.is_empty(),
        "{} runs went wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
