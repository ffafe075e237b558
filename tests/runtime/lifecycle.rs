//! Abort, dispose, and misuse of the API.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::*;
use coderun_runtime::{AbortController, MisuseError, RuntimeError};
use serde_json::json;

#[tokio::test]
async fn abort_stops_a_spinning_program_promptly() {
    let controller = AbortController::new();
    let request = CodeRunRequest::new("for (;;) {}").signal(controller.signal());
    let run = tokio::spawn(async move { shared().run(request).await.unwrap() });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let fired = Instant::now();
    controller.abort("the user pressed stop");
    let result = run.await.unwrap();
    let latency = fired.elapsed();
    assert_failure(&result, FailureKind::Abort, "the user pressed stop");
    assert!(result.fuel_consumed > 0, "the guest was running");
    eprintln!("abort latency: {latency:?}");
}

#[tokio::test]
async fn abort_stops_a_spinning_unmetered_program() {
    // Without fuel, the guest yields at epoch ticks instead.
    let runtime = runtime_with(|c| {
        c.fuel_metering(false);
    });
    let controller = AbortController::new();
    let request = CodeRunRequest::new("for (;;) {}").signal(controller.signal());
    let run = tokio::spawn(async move { runtime.run(request).await.unwrap() });
    tokio::time::sleep(Duration::from_millis(100)).await;
    controller.abort("stop spinning");
    let result = tokio::time::timeout(Duration::from_secs(20), run)
        .await
        .expect("an aborted unmetered run ends")
        .unwrap();
    assert_failure(&result, FailureKind::Abort, "stop spinning");
    assert_eq!(result.fuel_consumed, 0);
}

#[test]
fn an_unmetered_runtime_that_sat_idle_still_times_out_a_spinning_program() {
    // The epoch ticker parks while no run is active; a run must wake it, or
    // a spinning guest would never yield and the wall clock never fire.
    let (first, spinning) = on_a_thread_of_its_own(
        "a spinning unmetered run ends at its wall clock",
        || async {
            let runtime = runtime_with(|c| {
                c.fuel_metering(false)
                    .wall_clock(Duration::from_millis(300));
            });
            let first = runtime.run(CodeRunRequest::new("return 1")).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            let spinning = runtime.run(CodeRunRequest::new("for (;;) {}")).await;
            (first, spinning)
        },
    );
    let first = first.unwrap();
    assert_eq!(first.value, Some(json!(1)), "{first:?}");
    assert_failure(&spinning.unwrap(), FailureKind::Timeout, "wall-clock");
}

#[tokio::test]
async fn a_pre_aborted_request_never_starts_a_guest() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let host = CodeBindingNamespace::new("tools").function("touch", move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
        async move { Ok(json!(null)) }
    });
    let controller = AbortController::new();
    controller.abort("not today");
    let request = CodeRunRequest::new("await tools.touch(); return 1")
        .binding(host)
        .signal(controller.signal());
    let result = shared().run(request).await.unwrap();
    assert_failure(&result, FailureKind::Abort, "not today");
    assert_eq!(result.fuel_consumed, 0);
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn abort_while_awaiting_a_binding() {
    let controller = AbortController::new();
    let host = CodeBindingNamespace::new("tools")
        .function("hang", |_| async move { std::future::pending().await });
    let request = CodeRunRequest::new("await tools.hang()")
        .binding(host)
        .signal(controller.signal());
    let run = tokio::spawn(async move { shared().run(request).await.unwrap() });
    tokio::time::sleep(Duration::from_millis(50)).await;
    controller.abort("enough waiting");
    let result = run.await.unwrap();
    assert_failure(&result, FailureKind::Abort, "enough waiting");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispose_aborts_running_programs_and_refuses_new_ones() {
    let runtime = runtime_with(|_| {});
    // Each run's store holds its bindings; the marker is shared by them, so
    // its count drops back to one only once both guests are gone.
    let marker = Arc::new(());
    let spinners: Vec<_> = (0..2)
        .map(|_| {
            let runtime = runtime.clone();
            let held = marker.clone();
            let host = CodeBindingNamespace::new("tools").function("unused", move |_| {
                let _held = &held;
                async move { Ok(json!(null)) }
            });
            let request = CodeRunRequest::new("for (;;) {}").binding(host);
            tokio::spawn(async move { runtime.run(request).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(Arc::strong_count(&marker), 3, "both runs are in flight");
    runtime.dispose().await;
    assert_eq!(
        Arc::strong_count(&marker),
        1,
        "dispose returned before every guest stopped"
    );
    for spinner in spinners {
        let result = spinner.await.unwrap().unwrap();
        assert_failure(&result, FailureKind::Abort, "the runtime was disposed");
    }
    let later = runtime.run(CodeRunRequest::new("return 1")).await;
    assert_eq!(later.unwrap_err(), MisuseError::Disposed);
}

#[test]
fn dispose_stops_runs_started_on_every_thread() {
    // A run listens for dispose in the shard of the thread it started on
    // (one shard per instance pool): dispose must reach every shard. Four
    // new threads land in both shards of two pools unless other tests'
    // threads, numbered at the same time, take every other number; a run
    // dispose missed spins on until its fuel runs out, and ends as a
    // timeout.
    const THREADS: usize = 4;
    let runtime = runtime_with(|c| {
        c.instance_pools(Some(2))
            .max_concurrent_runs(THREADS)
            .wall_clock(Duration::from_secs(60));
    });
    let started = Arc::new(AtomicUsize::new(0));
    let gate = {
        let started = started.clone();
        CodeBindingNamespace::new("gate").function("started", move |_| {
            started.fetch_add(1, Ordering::SeqCst);
            async { Ok(json!(null)) }
        })
    };
    let (sender, receiver) = std::sync::mpsc::channel();
    for _ in 0..THREADS {
        let (runtime, gate, sender) = (runtime.clone(), gate.clone(), sender.clone());
        std::thread::spawn(move || {
            let tokio = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime");
            let request = CodeRunRequest::new("await gate.started(); for (;;) {}").binding(gate);
            let _ = sender.send(tokio.block_on(runtime.run(request)));
        });
    }
    let waiting_since = Instant::now();
    while started.load(Ordering::SeqCst) < THREADS {
        assert!(
            waiting_since.elapsed() < Duration::from_secs(20),
            "every run started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    on_a_thread_of_its_own("dispose returned", move || async move {
        runtime.dispose().await;
    });
    for _ in 0..THREADS {
        let result = receiver
            .recv_timeout(Duration::from_secs(20))
            .expect("every run ended at dispose")
            .expect("no misuse");
        assert_failure(&result, FailureKind::Abort, "the runtime was disposed");
    }
}

#[tokio::test]
async fn invalid_binding_globals_are_misuse() {
    for global in ["not valid!", "await", "console", ""] {
        let request = CodeRunRequest::new("return 1").binding(CodeBindingNamespace::new(global));
        let error = shared().run(request).await.unwrap_err();
        assert!(
            matches!(&error, MisuseError::InvalidBindingGlobal { global: g, .. } if g == global),
            "{global:?}: {error}"
        );
        assert!(
            error.to_string().contains(&format!("{global:?}")),
            "{error}"
        );
    }
    let request = CodeRunRequest::new("return 1")
        .binding(CodeBindingNamespace::new("tools"))
        .binding(CodeBindingNamespace::new("tools"));
    let error = shared().run(request).await.unwrap_err();
    assert_eq!(
        error,
        MisuseError::DuplicateBindingGlobal {
            global: "tools".into()
        }
    );
}

#[test]
fn invalid_config_is_refused_at_construction() {
    let zero_fuel = WasmCodeRuntime::new(RuntimeConfig::new().fuel(0).clone());
    let Err(RuntimeError::Config(error)) = zero_fuel else {
        panic!("zero fuel was accepted");
    };
    assert_eq!(error.to_string(), "config.fuel must be positive (got 0)");

    let zero_memory = WasmCodeRuntime::new(RuntimeConfig::new().max_memory_bytes(0).clone());
    let Err(RuntimeError::Config(error)) = zero_memory else {
        panic!("zero memory was accepted");
    };
    assert!(
        error.to_string().starts_with("config.max_memory_bytes"),
        "{error}"
    );
    assert!(error.to_string().ends_with("(got 0)"), "{error}");
}

/// The smallest memory cap the config takes is one the guest starts in
/// (its snapshot takes 8.5 MiB); a byte less is refused by the config,
/// with the bounds, rather than by wasmtime when the runtime is built.
#[tokio::test]
async fn the_smallest_memory_cap_runs_a_program() {
    const SMALLEST: u64 = 9 * 1024 * 1024;
    let runtime = runtime_with(|c| {
        c.max_memory_bytes(SMALLEST);
    });
    let result = runtime
        .run(CodeRunRequest::new("return [1, 2, 3].map((n) => n * 2)"))
        .await
        .expect("no misuse");
    assert_ok(&result);
    assert_eq!(result.value, Some(serde_json::json!([2, 4, 6])));
    let below = WasmCodeRuntime::new(RuntimeConfig::new().max_memory_bytes(SMALLEST - 1).clone());
    let Err(RuntimeError::Config(error)) = below else {
        panic!("a cap below the smallest was accepted");
    };
    assert!(
        error
            .to_string()
            .starts_with("config.max_memory_bytes must be between 9437184 (9 MiB)"),
        "{error}"
    );
}

#[test]
fn descriptors() {
    assert_eq!(shared().language(), coderun_runtime::Language::TYPESCRIPT);
    assert_eq!(shared().language().as_str(), "typescript");
    assert_eq!(shared().isolation(), "wasm");
}

#[tokio::test]
async fn a_compile_cache_directory_is_filled_and_survives_a_corrupt_file() {
    let dir = std::env::temp_dir().join(format!("coderun-compile-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Two pools of one slot each, so that a runtime built from the file
    // deserialises it into both engines, and a second run at once takes
    // the second pool.
    let with_cache = || {
        runtime_with(|c| {
            c.compile_cache_dir(Some(dir.clone()))
                .instance_pools(Some(2))
                .max_concurrent_runs(2);
        })
    };
    let cached_files = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .map(|entry| entry.unwrap().path())
                    .filter(|path| path.extension().is_some_and(|ext| ext == "cwasm"))
                    .collect()
            })
            .unwrap_or_default()
    };

    let first = with_cache();
    let files = cached_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let result = first
        .run(CodeRunRequest::new("return 6 * 7"))
        .await
        .unwrap();
    assert_eq!(result.value, Some(json!(42)));

    // A runtime built from the file on disk runs programs the same way, in
    // each of its pools (the second run, made while the first holds its
    // thread's pool's only slot, takes the other).
    let from_disk = with_cache();
    assert_eq!(from_disk.instance_pools(), 2);
    let (parked, released) = (
        Arc::new(tokio::sync::Notify::new()),
        Arc::new(tokio::sync::Notify::new()),
    );
    let gate = {
        let (parked, released) = (parked.clone(), released.clone());
        CodeBindingNamespace::new("gate").function("wait", move |_| {
            let (parked, released) = (parked.clone(), released.clone());
            async move {
                parked.notify_one();
                released.notified().await;
                Ok(json!(6))
            }
        })
    };
    let holder = from_disk.clone();
    let holding = tokio::spawn(async move {
        let request = CodeRunRequest::new("return 7 * (await gate.wait())").binding(gate);
        holder.run(request).await.unwrap()
    });
    parked.notified().await;
    let result = from_disk
        .run(CodeRunRequest::new("return 6 * 7"))
        .await
        .unwrap();
    assert_eq!(result.value, Some(json!(42)));
    released.notify_one();
    assert_eq!(holding.await.unwrap().value, Some(json!(42)));

    // A file that is not a compiled guest is ignored and replaced.
    std::fs::write(&files[0], b"not a compiled guest").unwrap();
    let after_corruption = with_cache();
    let result = after_corruption
        .run(CodeRunRequest::new("return 6 * 7"))
        .await
        .unwrap();
    assert_eq!(result.value, Some(json!(42)));
    assert!(std::fs::metadata(&files[0]).unwrap().len() > 1024);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What `work`'s future gives, run on a thread of its own with a
/// current-thread tokio runtime; a failure saying `expected` if that takes
/// more than 20 s. A guest that never yields blocks its thread, and so
/// fails the test rather than hanging it.
fn on_a_thread_of_its_own<T, F>(expected: &str, work: impl FnOnce() -> F + Send + 'static) -> T
where
    T: Send + 'static,
    F: std::future::Future<Output = T>,
{
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let tokio = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let _ = sender.send(tokio.block_on(work()));
    });
    receiver
        .recv_timeout(Duration::from_secs(20))
        .expect(expected)
}

/// Runs `count` copies of `source` at once with a runtime configured by
/// `configure`, on a thread of their own with one tokio thread, so that
/// every run prefers the same instance pool. `gate.wait()` resolves only
/// once every run is waiting in it. A run that never found a slot would
/// block the thread: the test fails at 20 s.
fn runs_at_once(
    configure: impl FnOnce(&mut RuntimeConfig) + Send + 'static,
    source: &'static str,
    count: usize,
) -> Vec<CodeRunResult> {
    let (pools, results) =
        on_a_thread_of_its_own("every run found a slot and ended", move || async move {
            let runtime = runtime_with(configure);
            let barrier = Arc::new(tokio::sync::Barrier::new(count));
            let gate = CodeBindingNamespace::new("gate").function("wait", move |_| {
                let barrier = barrier.clone();
                async move {
                    barrier.wait().await;
                    Ok(json!("passed"))
                }
            });
            let runs = (0..count).map(|_| {
                let request = CodeRunRequest::new(source).binding(gate.clone());
                let runtime = runtime.clone();
                async move { runtime.run(request).await.expect("no misuse") }
            });
            (
                runtime.instance_pools(),
                futures::future::join_all(runs).await,
            )
        });
    eprintln!("{count} runs at once in {pools} instance pools");
    results
}

#[test]
fn runs_past_the_slots_of_their_threads_pool_take_another_pools() {
    // Two pools of two slots each; four runs from one thread need both.
    let results = runs_at_once(
        |c| {
            c.instance_pools(Some(2)).max_concurrent_runs(4);
        },
        "return await gate.wait()",
        4,
    );
    for result in &results {
        assert_eq!(result.value, Some(json!("passed")), "{result:?}");
    }
}

#[test]
fn more_pools_than_slots_are_not_made() {
    let runtime = runtime_with(|c| {
        c.instance_pools(Some(64)).max_concurrent_runs(3);
    });
    assert_eq!(runtime.instance_pools(), 3);
    let runtime = runtime_with(|c| {
        c.instance_pools(Some(1));
    });
    assert_eq!(runtime.instance_pools(), 1);
}

#[test]
fn an_unmetered_runtime_stops_spinning_programs_in_every_pool() {
    // Each pool is an engine of its own, and an unmetered guest yields only
    // when its engine's epoch advances: the second run, in the second pool,
    // would spin forever (and block the thread) if only the first pool's
    // epoch did.
    let results = runs_at_once(
        |c| {
            c.instance_pools(Some(2))
                .max_concurrent_runs(2)
                .fuel_metering(false)
                .wall_clock(Duration::from_millis(300));
        },
        "for (;;) {}",
        2,
    );
    for result in &results {
        assert_failure(result, FailureKind::Timeout, "wall-clock");
    }
}
