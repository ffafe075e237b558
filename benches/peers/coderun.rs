//! The coderun side of `make bench-peers`: measures coderun (this build,
//! default configuration, fuel on; and for W3 also with fuel metering off)
//! and native QuickJS (rquickjs, the same
//! QuickJS compiled for this machine instead of wasm) on the workloads of
//! `benches/peers/programs/`, the way `benches/peers/common.mjs` measures the
//! Node-hosted peers, and prints one JSON object on stdout.
//!
//! ```sh
//! cargo bench --bench peers -- [cold] [typical] [calls] [cpu] [concurrent] [abort] [mcp] [throughput]
//! ```
//!
//! With no workload named, all of them run. Progress goes to stderr.
//! `throughput` (W7) uses as many tokio worker threads as the process may
//! use cores (`std::thread::available_parallelism`, which follows the CPU
//! affinity that run.py sets), and then measures `return 1 + 1` once more
//! with a thread and a runtime per core.

mod mcp;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};
use coderun_runtime::{
    AbortController, BindingError, CodeBindingNamespace, CodeRunRequest, CodeRunResult,
    CodeRuntime, FailureKind, RuntimeConfig, WasmCodeRuntime,
};
use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;

const COLD: &str = include_str!("programs/cold.js");
const TYPICAL: &str = include_str!("programs/typical.ts");
/// What `typical.ts` returns and logs, `{ value, logs }`; the Node-hosted
/// peers check their runs of `typical.js` against it too.
const TYPICAL_EXPECTED: &str = include_str!("programs/typical.expected.json");
const CALLS: &str = include_str!("programs/calls.js");
const CALLS_BASELINE: &str = include_str!("programs/calls-baseline.js");
const CONCURRENT: &str = include_str!("programs/concurrent.js");
const SPIN: &str = include_str!("programs/spin.js");
const CPU: [(&str, &str); 3] = [
    ("fib", include_str!("programs/fib.js")),
    ("json", include_str!("programs/json.js")),
    ("sort", include_str!("programs/sort.js")),
];
/// The binding calls `calls.js` makes.
const CALLS_PER_RUN: f64 = 1000.0;
/// W3's runs per program and engine, after one warm-up; each figure is the
/// best of them.
const CPU_REPS: usize = 10;
/// The pages W6's `tools.list` serves; the last one's `next` is null.
const LIST_PAGES: u64 = 10;
/// W7's warm-up, then its measured windows, per program.
const THROUGHPUT_WARMUP: Duration = Duration::from_millis(500);
const THROUGHPUT_WINDOW: Duration = Duration::from_secs(1);
const THROUGHPUT_WINDOWS: usize = 5;
const WORKLOADS: [&str; 8] = [
    "cold",
    "typical",
    "calls",
    "cpu",
    "concurrent",
    "abort",
    "mcp",
    "throughput",
];

fn main() -> anyhow::Result<()> {
    // `cargo bench` passes `--bench`; anything else is a workload name.
    let asked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    for arg in &asked {
        ensure!(
            WORKLOADS.contains(&arg.as_str()),
            "unknown workload {arg} (known: {})",
            WORKLOADS.join(", ")
        );
    }
    let wanted = |workload: &str| asked.is_empty() || asked.iter().any(|a| a == workload);

    // A multi-threaded runtime, as `#[tokio::main]` gives an embedder.
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let config = RuntimeConfig::default();
    let mut coderun = Map::new();
    coderun.insert("fuel".into(), json!(config.get_fuel()));
    let mut native_quickjs = None;
    if wanted("throughput") {
        // Its own tokio runtime: one worker thread per core it may use.
        progress("coderun: throughput");
        coderun.insert("throughput".into(), throughput(&config)?);
    }
    tokio.block_on(async {
        let runtime = WasmCodeRuntime::new(config.clone()).context("building the runtime")?;
        if wanted("cold") {
            progress("coderun: cold");
            // More runs on request, for a profiler to see past the set-up.
            let runs = match std::env::var("CODERUN_W1_RUNS") {
                Ok(runs) => runs.parse().context("CODERUN_W1_RUNS is a count of runs")?,
                Err(_) => 2000,
            };
            coderun.insert("cold".into(), cold(&runtime, runs, 50).await?);
        }
        if wanted("typical") {
            progress("coderun: typical");
            coderun.insert("typical".into(), typical(&runtime, 300, 20).await?);
        }
        if wanted("calls") {
            progress("coderun: calls");
            coderun.insert("calls".into(), calls(&runtime, 30).await?);
        }
        if wanted("cpu") {
            progress("coderun (fuel on, fuel off) and native QuickJS: cpu, interleaved");
            let mut unmetered = config;
            unmetered.fuel_metering(false);
            let unmetered = WasmCodeRuntime::new(unmetered).context("building the runtime")?;
            let [on, off, native] = cpu(&runtime, &unmetered, CPU_REPS).await?;
            coderun.insert("cpu".into(), on);
            coderun.insert("cpu_fuel_off".into(), off);
            native_quickjs = Some(native);
        }
        if wanted("concurrent") {
            progress("coderun: concurrent");
            coderun.insert("concurrent".into(), concurrent(&runtime, 1000).await?);
        }
        if wanted("abort") {
            progress("coderun: abort");
            coderun.insert("abort".into(), abort(&runtime, 20).await?);
        }
        if wanted("mcp") {
            progress("coderun mcp and a direct MCP client: mcp, interleaved");
            coderun.insert("mcp".into(), mcp::measure(200, 20).await?);
        }
        anyhow::Ok(())
    })?;

    let mut report = Map::new();
    report.insert("coderun".into(), Value::Object(coderun));
    if let Some(cpu) = native_quickjs {
        let quickjs = json!({ "version": "rquickjs 0.14.0 (native)", "cpu": cpu });
        report.insert("native QuickJS".into(), quickjs);
    }
    println!("{}", Value::Object(report));
    Ok(())
}

fn progress(message: &str) {
    eprintln!("  {message}");
}

/// Nearest-rank percentile of `samples` (milliseconds), `p` in [0, 1].
fn percentile(samples: &[f64], p: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn median(samples: &[f64]) -> f64 {
    percentile(samples, 0.5)
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn echo_tools() -> CodeBindingNamespace {
    CodeBindingNamespace::new("tools").function("echo", |args| async move { Ok(args) })
}

/// Runs `request` and checks that it returned `expected` (when given).
async fn timed_run(
    runtime: &WasmCodeRuntime,
    request: CodeRunRequest,
    expected: Option<&Value>,
) -> anyhow::Result<(f64, CodeRunResult)> {
    let start = Instant::now();
    let result = runtime.run(request).await?;
    let elapsed = ms(start.elapsed());
    if let Some(expected) = expected
        && result.value.as_ref() != Some(expected)
    {
        bail!("expected {expected}, got {result:?}");
    }
    Ok((elapsed, result))
}

/// `runs` sequential cold runs of the request `request` builds, after
/// `warmup`, each checked by `check`.
async fn sequential(
    runtime: &WasmCodeRuntime,
    runs: usize,
    warmup: usize,
    request: impl Fn() -> CodeRunRequest,
    check: impl Fn(&CodeRunResult) -> anyhow::Result<()>,
) -> anyhow::Result<Value> {
    for _ in 0..warmup {
        check(&timed_run(runtime, request(), None).await?.1)?;
    }
    let mut samples = Vec::with_capacity(runs);
    let start = Instant::now();
    for _ in 0..runs {
        let (elapsed, result) = timed_run(runtime, request(), None).await?;
        check(&result)?;
        samples.push(elapsed);
    }
    let total = start.elapsed().as_secs_f64();
    Ok(json!({
        "runs": runs,
        "p50_us": median(&samples) * 1000.0,
        "p99_us": percentile(&samples, 0.99) * 1000.0,
        "runs_per_s": runs as f64 / total,
    }))
}

/// W1: `runs` sequential cold runs of `return 1 + 1`, after `warmup`.
async fn cold(runtime: &WasmCodeRuntime, runs: usize, warmup: usize) -> anyhow::Result<Value> {
    let two = json!(2);
    let check = |result: &CodeRunResult| {
        ensure!(
            result.value.as_ref() == Some(&two),
            "expected 2, got {result:?}"
        );
        Ok(())
    };
    sequential(runtime, runs, warmup, || CodeRunRequest::new(COLD), check).await
}

/// W6: `runs` sequential cold runs of the typical agent program (10
/// `tools.list` calls, 1,000 issues), after `warmup`, each checked against
/// typical.expected.json.
async fn typical(runtime: &WasmCodeRuntime, runs: usize, warmup: usize) -> anyhow::Result<Value> {
    let expected: Value = serde_json::from_str(TYPICAL_EXPECTED)?;
    let check = |result: &CodeRunResult| {
        let logs: Vec<&str> = result.logs.iter().map(|line| line.text.as_str()).collect();
        let got = json!({ "value": result.value, "logs": logs });
        ensure!(got == expected, "expected {expected}, got {result:?}");
        Ok(())
    };
    let request = || CodeRunRequest::new(TYPICAL).binding(list_tools());
    sequential(runtime, runs, warmup, request, check).await
}

/// W6's binding: `tools.list({ page, size })`, a page of `size` issues.
fn list_tools() -> CodeBindingNamespace {
    CodeBindingNamespace::new("tools").function("list", |args| async move { list_page(&args) })
}

fn list_page(args: &Value) -> Result<Value, BindingError> {
    let arg = |name: &str| {
        args[name]
            .as_u64()
            .ok_or_else(|| BindingError::new(format!("list: {name} must be a natural number")))
    };
    let (page, size) = (arg("page")?, arg("size")?);
    let items: Vec<Value> = (page * size..(page + 1) * size).map(issue).collect();
    let next = (page + 1 < LIST_PAGES).then_some(page + 1);
    Ok(json!({ "items": items, "next": next }))
}

/// Issue `id` of W6's tracker (`issue` in common.mjs is the same generator).
fn issue(id: u64) -> Value {
    const LABELS: [&str; 4] = ["bug", "feature", "docs", "question"];
    let mut labels = vec![LABELS[(id % 4) as usize]];
    if id.is_multiple_of(5) {
        labels.push("urgent");
    }
    let state = if id.is_multiple_of(3) {
        "closed"
    } else {
        "open"
    };
    json!({ "id": id, "state": state, "labels": labels, "comments": id * 7 % 13 })
}

/// W2: the median run of 1,000 awaited binding calls, minus the median run
/// of the same loop awaiting resolved promises, per call.
async fn calls(runtime: &WasmCodeRuntime, reps: usize) -> anyhow::Result<Value> {
    let sum = json!(499500);
    let (mut calls, mut baseline) = (Vec::new(), Vec::new());
    for rep in 0..=reps {
        let request = CodeRunRequest::new(CALLS).binding(echo_tools());
        let (a, _) = timed_run(runtime, request, Some(&sum)).await?;
        let request = CodeRunRequest::new(CALLS_BASELINE).binding(echo_tools());
        let (b, _) = timed_run(runtime, request, Some(&sum)).await?;
        // the first pair is a warm-up
        if rep > 0 {
            calls.push(a);
            baseline.push(b);
        }
    }
    Ok(json!({
        "us_per_call": (median(&calls) - median(&baseline)) * 1000.0 / CALLS_PER_RUN,
        "run_ms": median(&calls),
        "baseline_ms": median(&baseline),
    }))
}

/// W3: each program `reps` times (after one warm-up) on coderun with fuel
/// on, coderun with fuel off and native QuickJS, interleaved run by run, so
/// that the three see the same machine: on a shared machine a slow spell
/// lasts seconds, and measuring one engine after the other lets it land on
/// one of them only. Returns the figures of the three, in that order.
async fn cpu(
    metered: &WasmCodeRuntime,
    unmetered: &WasmCodeRuntime,
    reps: usize,
) -> anyhow::Result<[Value; 3]> {
    let mut out: [Map<String, Value>; 3] = Default::default();
    for (name, program) in CPU {
        let mut samples: [Vec<f64>; 3] = Default::default();
        let mut values = [Value::Null, Value::Null, Value::Null];
        for rep in 0..=reps {
            for (i, runtime) in [metered, unmetered].into_iter().enumerate() {
                let (elapsed, result) =
                    timed_run(runtime, CodeRunRequest::new(program), None).await?;
                if let Some(error) = result.error {
                    bail!("{name}: {error}");
                }
                if rep > 0 {
                    samples[i].push(elapsed);
                }
                values[i] = result.value.unwrap_or(Value::Null);
            }
            let (elapsed, value) = native_run(name, program)?;
            if rep > 0 {
                samples[2].push(elapsed);
            }
            values[2] = value;
        }
        for ((out, samples), value) in out.iter_mut().zip(&samples).zip(values) {
            out.insert(name.into(), cpu_figures(samples, value));
        }
    }
    Ok(out.map(Value::Object))
}

/// One W3 program's figures: the best and the median time, and its checksum.
fn cpu_figures(samples: &[f64], value: Value) -> Value {
    let best = samples.iter().copied().fold(f64::INFINITY, f64::min);
    json!({ "ms": best, "median_ms": median(samples), "value": value })
}

/// One W3 run on native QuickJS: a fresh runtime and context, the program as
/// the body of an async function. Returns the time and the checksum.
fn native_run(name: &str, program: &str) -> anyhow::Result<(f64, Value)> {
    let start = Instant::now();
    let runtime = rquickjs::Runtime::new()?;
    let context = rquickjs::Context::full(&runtime)?;
    let value = context
        .with(|ctx| {
            let promise: rquickjs::Promise =
                ctx.eval(format!("(async () => {{\n{program}\n}})()"))?;
            promise.finish::<f64>()
        })
        .with_context(|| format!("native QuickJS running {name}"))?;
    let elapsed = ms(start.elapsed());
    // The checksums are integers; print them as the other peers do.
    let value = if value.fract() == 0.0 {
        json!(value as i64)
    } else {
        json!(value)
    };
    Ok((elapsed, value))
}

/// The process's resident memory, from /proc (Linux): its resident set
/// (`VmRSS`, which counts a page shared by several mappings once per
/// mapping) and its proportional set size (`Pss`, which shares each such
/// page out among them), in bytes.
fn memory_bytes() -> anyhow::Result<(u64, u64)> {
    let kib = |file: &str, key: &str| -> anyhow::Result<u64> {
        let text = std::fs::read_to_string(file)?;
        let line = text
            .lines()
            .find(|line| line.starts_with(key))
            .with_context(|| format!("no {key} in {file}"))?;
        Ok(line
            .trim_start_matches(key)
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()?)
    };
    let rss = kib("/proc/self/status", "VmRSS:")?;
    let pss = kib("/proc/self/smaps_rollup", "Pss:")?;
    Ok((rss * 1024, pss * 1024))
}

/// Each mapping of the process (where it starts and what it maps) with
/// its proportional set size in KiB, from `/proc/self/smaps`.
fn mappings_pss() -> anyhow::Result<Vec<(String, u64)>> {
    let text = std::fs::read_to_string("/proc/self/smaps")?;
    let mut mappings = Vec::new();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let Some(first) = fields.next() else { continue };
        if first.contains('-') && !first.ends_with(':') {
            // Keyed by where it starts: a heap that grows keeps its key.
            let (start, _) = first.split_once('-').context("a mapping's range")?;
            let name = fields.nth(4).unwrap_or("[anonymous]");
            mappings.push((format!("{start} {name}"), 0));
        } else if first == "Pss:"
            && let Some(last) = mappings.last_mut()
        {
            last.1 = fields.next().context("Pss's value")?.parse()?;
        }
    }
    Ok(mappings)
}

/// With `CODERUN_W4_MAPPINGS` set, W4 prints to stderr the mappings whose
/// proportional set grew while its runs were parked, largest first, per
/// run: where a parked run's memory is.
fn print_mapping_growth(before: &[(String, u64)], after: &[(String, u64)], runs: usize) {
    let before: std::collections::HashMap<&str, u64> = before
        .iter()
        .map(|(name, pss)| (name.as_str(), *pss))
        .collect();
    let mut growth: Vec<(i64, &str)> = after
        .iter()
        .map(|(name, pss)| {
            let was = before.get(name.as_str()).copied().unwrap_or(0);
            (*pss as i64 - was as i64, name.as_str())
        })
        .filter(|(grown, _)| *grown != 0)
        .collect();
    growth.sort_by_key(|(grown, _)| -grown.abs());
    // By name as well: the pooling allocator maps the image once per slot,
    // and each pooled stack is a mapping of its own between guard pages.
    let mut by_name: std::collections::BTreeMap<&str, (i64, usize)> = Default::default();
    for (grown, key) in &growth {
        let name = key.split_once(' ').map_or(*key, |(_, name)| name);
        let entry = by_name.entry(name).or_default();
        entry.0 += grown;
        entry.1 += 1;
    }
    for (name, (grown, count)) in &by_name {
        eprintln!(
            "W4 by name: {grown:+9} KiB ({:+.2} KiB a run) over {count} mappings: {name}",
            *grown as f64 / runs as f64
        );
    }
    for (grown, name) in growth.iter().take(20) {
        eprintln!(
            "W4 mapping: {:+9} KiB ({:+.2} KiB a run) {name}",
            grown,
            *grown as f64 / runs as f64
        );
    }
}

/// With `CODERUN_W4_MAPPINGS` set, W4 also prints each page of the guest's
/// memory image that at least half the slots hold a private copy of
/// (present, and no longer the image's page): the pages a parked run
/// writes, as offsets into the image. With `CODERUN_W4_WORDS=FILE` too, it
/// writes the words that differ from the image on one slot's copied pages
/// to FILE (`offset old new`, in hex), to tell a reference count from a
/// list link.
fn print_image_pages(runs: usize) -> anyhow::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let maps = std::fs::read_to_string("/proc/self/maps")?;
    let images: Vec<(String, u64, u64)> = maps
        .lines()
        .filter(|line| line.contains("/memfd:wasm-memory-image"))
        .map(|line| {
            let mut fields = line.split_whitespace();
            let range = fields.next().context("a mapping's range")?;
            let start = range.split_once('-').context("a mapping's range")?.0;
            let offset = fields.nth(1).context("a mapping's offset")?;
            Ok((
                range.to_owned(),
                u64::from_str_radix(start, 16)?,
                u64::from_str_radix(offset, 16)?,
            ))
        })
        .collect::<anyhow::Result<_>>()?;
    let mut pagemap = std::fs::File::open("/proc/self/pagemap")?;
    let mut copies: std::collections::BTreeMap<u64, usize> = Default::default();
    for (range, start, _) in &images {
        let (_, end) = range.split_once('-').context("a mapping's range")?;
        let pages = (u64::from_str_radix(end, 16)? - start) / 4096;
        let mut entries = vec![0u8; pages as usize * 8];
        pagemap.seek(SeekFrom::Start(start / 4096 * 8))?;
        pagemap.read_exact(&mut entries)?;
        for (page, entry) in entries.chunks_exact(8).enumerate() {
            let entry = u64::from_le_bytes(entry.try_into()?);
            // Present (bit 63), and anonymous rather than the file's (61).
            if entry >> 63 & 1 == 1 && entry >> 61 & 1 == 0 {
                *copies.entry(page as u64).or_default() += 1;
            }
        }
    }
    let common: Vec<u64> = copies
        .iter()
        .filter(|(_, slots)| **slots * 2 >= runs)
        .map(|(page, _)| *page)
        .collect();
    eprintln!(
        "W4 image pages copied by at least half the runs: {}",
        common.len()
    );
    for page in &common {
        eprintln!("W4 image page at offset {:#x}", page * 4096);
    }
    if let (Some(path), Some((range, start, offset))) =
        (std::env::var_os("CODERUN_W4_WORDS"), images.first())
    {
        let mut image = std::fs::File::open(format!("/proc/self/map_files/{range}"))?;
        let mut memory = std::fs::File::open("/proc/self/mem")?;
        let mut words = String::new();
        let (mut now, mut was) = (vec![0u8; 4096], vec![0u8; 4096]);
        for page in &common {
            memory.seek(SeekFrom::Start(start + page * 4096))?;
            memory.read_exact(&mut now)?;
            image.seek(SeekFrom::Start(offset + page * 4096))?;
            image.read_exact(&mut was)?;
            for (at, (old, new)) in was.chunks_exact(4).zip(now.chunks_exact(4)).enumerate() {
                if old != new {
                    words += &format!(
                        "{:#x} {:08x} {:08x}\n",
                        page * 4096 + at as u64 * 4,
                        u32::from_le_bytes(old.try_into()?),
                        u32::from_le_bytes(new.try_into()?)
                    );
                }
            }
        }
        std::fs::write(path, words)?;
    }
    Ok(())
}

/// W4: `runs` runs at once, each awaiting `tools.echo`, which holds every
/// call until all runs have made theirs; the resident set is sampled then,
/// with every run alive.
async fn concurrent(runtime: &WasmCodeRuntime, runs: usize) -> anyhow::Result<Value> {
    let arrived = Arc::new(Semaphore::new(0));
    let release = Arc::new(Semaphore::new(0));
    let tools = {
        let (arrived, release) = (arrived.clone(), release.clone());
        CodeBindingNamespace::new("tools").function("echo", move |args| {
            let (arrived, release) = (arrived.clone(), release.clone());
            async move {
                arrived.add_permits(1);
                let permit = release
                    .acquire()
                    .await
                    .map_err(|e| BindingError::new(e.to_string()))?;
                permit.forget();
                Ok(args)
            }
        })
    };
    // A few runs first, so that what any first run pages in is not counted.
    for _ in 0..3 {
        let request = CodeRunRequest::new(CONCURRENT).binding(echo_tools());
        timed_run(runtime, request, Some(&json!(1))).await?;
    }
    let (rss_before, pss_before) = memory_bytes()?;
    let mappings_before = mappings_pss()?;
    let start = Instant::now();
    let pending: Vec<_> = (0..runs)
        .map(|_| {
            let runtime = runtime.clone();
            let request = CodeRunRequest::new(CONCURRENT).binding(tools.clone());
            tokio::spawn(async move { runtime.run(request).await })
        })
        .collect();
    let all = u32::try_from(runs)?;
    let barrier = tokio::time::timeout(Duration::from_secs(120), arrived.acquire_many(all)).await;
    let arrived_count = match barrier {
        Ok(_) => runs,
        Err(_) => arrived.available_permits(),
    };
    let (rss_peak, pss_peak) = memory_bytes()?;
    if std::env::var_os("CODERUN_W4_MAPPINGS").is_some() {
        print_mapping_growth(&mappings_before, &mappings_pss()?, runs);
        print_image_pages(runs)?;
    }
    release.add_permits(runs);
    let mut completed = 0;
    for run in pending {
        if let Ok(Ok(result)) = run.await
            && result.value == Some(json!(1))
        {
            completed += 1;
        }
    }
    let total_ms = ms(start.elapsed());
    let mib = |before: u64, peak: u64| (peak as f64 - before as f64) / (1024.0 * 1024.0);
    let (delta_mib, rss_delta_mib) = (mib(pss_before, pss_peak), mib(rss_before, rss_peak));
    Ok(json!({
        "runs": runs,
        "completed": completed,
        "arrived": arrived_count,
        "total_ms": total_ms,
        "pss_delta_mib": delta_mib,
        "mib_per_run": delta_mib / runs as f64,
        "rss_delta_mib": rss_delta_mib,
        "rss_mib_per_run": rss_delta_mib / runs as f64,
    }))
}

/// W7: short runs completed per second with one tokio worker thread per
/// usable core, for W1's `return 1 + 1` and W6's typical program. Two runs
/// per worker are in flight at once, each started when one ends, so that a
/// worker always has a run to go on with while another awaits a binding.
/// Counts the runs that end in each one-second window after a warm-up;
/// every run is checked as W1 and W6 check theirs.
fn throughput(config: &RuntimeConfig) -> anyhow::Result<Value> {
    let cores = std::thread::available_parallelism()?.get();
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores)
        .enable_all()
        .build()?;
    let mut figures = tokio.block_on(async {
        let runtime = WasmCodeRuntime::new(config.clone()).context("building the runtime")?;
        let expected: Value = serde_json::from_str(TYPICAL_EXPECTED)?;
        let cold = saturate(
            &runtime,
            2 * cores,
            || CodeRunRequest::new(COLD),
            returned_two,
        )
        .await?;
        let request = || CodeRunRequest::new(TYPICAL).binding(list_tools());
        let typical = saturate(&runtime, 2 * cores, request, move |result| {
            let logs: Vec<&str> = result.logs.iter().map(|line| line.text.as_str()).collect();
            let got = json!({ "value": result.value, "logs": logs });
            ensure!(got == expected, "expected {expected}, got {result:?}");
            Ok(())
        })
        .await?;
        anyhow::Ok(json!({ "cores": cores, "cold": cold, "typical": typical }))
    })?;
    drop(tokio);
    figures["cold_runtime_per_core"] = runtime_per_core(config, cores)?;
    Ok(figures)
}

/// W7's check of a `return 1 + 1` run.
fn returned_two(result: &CodeRunResult) -> anyhow::Result<()> {
    ensure!(result.value == Some(json!(2)), "expected 2, got {result:?}");
    Ok(())
}

/// W7's `return 1 + 1` as a deployment sized for throughput would run it:
/// a thread per core, each with a current-thread tokio runtime and a
/// `WasmCodeRuntime` of its own, two runs in flight on each; the threads'
/// rates added, window statistic by window statistic.
fn runtime_per_core(config: &RuntimeConfig, cores: usize) -> anyhow::Result<Value> {
    let threads: Vec<_> = (0..cores)
        .map(|_| {
            // One thread runs in it: one pool is all it uses.
            let mut config = config.clone();
            config.instance_pools(Some(1));
            std::thread::spawn(move || -> anyhow::Result<Value> {
                let tokio = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?;
                tokio.block_on(async move {
                    let runtime = WasmCodeRuntime::new(config).context("building the runtime")?;
                    saturate(&runtime, 2, || CodeRunRequest::new(COLD), returned_two).await
                })
            })
        })
        .collect();
    let (mut best, mut median) = (0.0, 0.0);
    for thread in threads {
        let figures = thread
            .join()
            .map_err(|_| anyhow::anyhow!("a W7 thread panicked"))??;
        best += figures["best"].as_f64().unwrap_or(0.0);
        median += figures["median"].as_f64().unwrap_or(0.0);
    }
    Ok(json!({ "best": best, "median": median }))
}

/// `in_flight` loops of back-to-back runs through W7's warm-up and its
/// windows: the runs per second that ended in the best window (on a shared
/// machine, the least disturbed one) and in the median one.
async fn saturate(
    runtime: &WasmCodeRuntime,
    in_flight: usize,
    request: impl Fn() -> CodeRunRequest + Clone + Send + 'static,
    check: impl Fn(&CodeRunResult) -> anyhow::Result<()> + Clone + Send + 'static,
) -> anyhow::Result<Value> {
    let from = Instant::now() + THROUGHPUT_WARMUP;
    let window = move |end: Instant| {
        let index = end.checked_duration_since(from)?.as_nanos() / THROUGHPUT_WINDOW.as_nanos();
        usize::try_from(index).ok()
    };
    let loops: Vec<_> = (0..in_flight)
        .map(|_| {
            let (runtime, request, check) = (runtime.clone(), request.clone(), check.clone());
            tokio::spawn(async move {
                let mut counts = [0u64; THROUGHPUT_WINDOWS];
                loop {
                    let result = runtime.run(request()).await?;
                    let end = Instant::now();
                    check(&result)?;
                    match window(end) {
                        Some(index) if index >= THROUGHPUT_WINDOWS => return anyhow::Ok(counts),
                        Some(index) => counts[index] += 1,
                        None => {}
                    }
                }
            })
        })
        .collect();
    let mut counts = [0u64; THROUGHPUT_WINDOWS];
    for run in loops {
        for (total, count) in counts.iter_mut().zip(run.await??) {
            *total += count;
        }
    }
    let rates: Vec<f64> = counts
        .iter()
        .map(|&count| count as f64 / THROUGHPUT_WINDOW.as_secs_f64())
        .collect();
    Ok(json!({
        "best": rates.iter().copied().fold(0.0, f64::max),
        "median": median(&rates),
    }))
}

/// W5: from firing the abort signal, 20 ms into a spinning program, to the
/// run's result.
async fn abort(runtime: &WasmCodeRuntime, reps: usize) -> anyhow::Result<Value> {
    let mut samples = Vec::with_capacity(reps);
    for _ in 0..reps {
        let controller = AbortController::new();
        let request = CodeRunRequest::new(SPIN).signal(controller.signal());
        let runner = runtime.clone();
        let run = tokio::spawn(async move { runner.run(request).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        let requested = Instant::now();
        controller.abort("bench");
        let result = run.await??;
        samples.push(ms(requested.elapsed()));
        let kind = result.error.as_ref().map(|e| e.kind);
        ensure!(
            kind == Some(FailureKind::Abort),
            "the spinning run was not aborted: {result:?}"
        );
    }
    Ok(json!({
        "samples": reps,
        "p50_ms": median(&samples),
        "max_ms": samples.iter().copied().fold(0.0, f64::max),
    }))
}
