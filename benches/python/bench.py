#!/usr/bin/env python3
"""The Python package's benchmarks (`make bench-python`).

Every figure is a ratio against a baseline measured in the same run, in the
same process where it can be:

- overhead per run: `Runtime.run_sync("return 1 + 1")` (and `await
  Runtime.run`) against the Rust library running the same program on the
  same runtime from Rust (`coderun._native.rust_loop`), interleaved block by
  block so that a slow spell of this shared machine falls on both alike;
- binding round trip: 1,000 awaited calls of a Python binding against the
  same loop calling a Rust binding;
- threads: runs/s of 8 Python threads calling `run_sync` against 1 thread;
- Ray: runs/s of `coderun.ray.Pool.map` with 2 workers against 1;
- the baseline a user would otherwise write: `subprocess.run(["coderun",
  "run", "-"])` in a loop, against `run_sync`.

Writes the table between the `<!-- python:begin -->` and
`<!-- python:end -->` markers of benches/RESULTS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import statistics
import subprocess
import sys
import threading
import time

import coderun
from coderun import _native

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "benches"))
import machine  # noqa: E402

BEGIN, END = "<!-- python:begin -->", "<!-- python:end -->"
ONE_PLUS_ONE = "return 1 + 1"
ECHO_LOOP = "for (let i = 0; i < 1000; i++) { await bench.echo(i); }"
WORK = "let s = 0; for (let i = 0; i < 200000; i++) { s += i % 7; } return s;"


def us(seconds: float) -> str:
    value = seconds * 1e6
    return f"{value:.1f} µs" if value < 1000 else f"{value / 1000:.2f} ms"


def per_run_overhead(runtime: coderun.Runtime, blocks: int, block: int):
    """Median per-run time of Python run_sync, awaited run and Rust, interleaved."""
    native = runtime._native
    python_times, async_times, rust_times = [], [], []

    async def awaited(n):
        started = time.perf_counter()
        for _ in range(n):
            await runtime.run(ONE_PLUS_ONE)
        return time.perf_counter() - started

    loop = asyncio.new_event_loop()
    for _ in range(blocks):
        started = time.perf_counter()
        for _ in range(block):
            runtime.run_sync(ONE_PLUS_ONE)
        python_times.append((time.perf_counter() - started) / block)
        rust_times.append(_native.rust_loop(native, ONE_PLUS_ONE, block) / block)
        async_times.append(loop.run_until_complete(awaited(block)) / block)
    loop.close()
    return statistics.median(python_times), statistics.median(async_times), statistics.median(rust_times)


def binding_round_trip(runtime: coderun.Runtime, repeats: int):
    native = runtime._native
    bindings = {"bench": {"echo": lambda x: x}}

    async def echo_async(x):
        return x

    async_bindings = {"bench": {"echo": echo_async}}
    python, rust, python_async = [], [], []
    loop = asyncio.new_event_loop()
    for _ in range(repeats):
        started = time.perf_counter()
        result = runtime.run_sync(ECHO_LOOP, bindings)
        assert result.ok, result.error
        python.append((time.perf_counter() - started) / 1000)
        rust.append(_native.rust_loop(native, ECHO_LOOP, 1, echo=True) / 1000)
        started = time.perf_counter()
        result = loop.run_until_complete(runtime.run(ECHO_LOOP, async_bindings))
        assert result.ok, result.error
        python_async.append((time.perf_counter() - started) / 1000)
    loop.close()
    return statistics.median(python), statistics.median(python_async), statistics.median(rust)


def threads_throughput(runtime: coderun.Runtime, threads: int, runs_each: int) -> float:
    barrier = threading.Barrier(threads + 1)

    def work():
        barrier.wait()
        for _ in range(runs_each):
            runtime.run_sync(WORK)

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for thread in pool:
        thread.start()
    barrier.wait()
    started = time.perf_counter()
    for thread in pool:
        thread.join()
    return threads * runs_each / (time.perf_counter() - started)


def subprocess_loop(cli: str, runs: int) -> float:
    subprocess.run([cli, "run", "-"], input=ONE_PLUS_ONE, capture_output=True, text=True, check=True)
    started = time.perf_counter()
    for _ in range(runs):
        done = subprocess.run([cli, "run", "-"], input=ONE_PLUS_ONE, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    return (time.perf_counter() - started) / runs


def ray_throughput(programs: int, cache: str):
    import ray

    import coderun.ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        rates = {}
        for workers in (1, 2):
            with coderun.ray.Pool(workers, runtime_options={"compile_cache_dir": cache}) as pool:
                pool.map([ONE_PLUS_ONE] * workers, progress=False)  # warm every worker
                started = time.perf_counter()
                results = pool.map([WORK] * programs, progress=False)
                rates[workers] = programs / (time.perf_counter() - started)
                assert all(result.ok for result in results)
        return rates
    finally:
        ray.shutdown()


def write(table: str) -> None:
    results = ROOT / "benches" / "RESULTS.md"
    old = results.read_text() if results.exists() else "# Benchmark results\n"
    section = f"{BEGIN}\n{table}\n{END}"
    if BEGIN in old and END in old:
        before, rest = old.split(BEGIN, 1)
        new = before + section + rest.split(END, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n" + section + "\n"
    results.write_text(new)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coderun", help="the coderun CLI, for the subprocess baseline")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke test)")
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    cache = str(pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "bench-compile-cache")

    runtime = coderun.Runtime(compile_cache_dir=cache)
    for _ in range(200):
        runtime.run_sync(ONE_PLUS_ONE)
    _native.rust_loop(runtime._native, ONE_PLUS_ONE, 200)

    sync_run, async_run, rust_run = per_run_overhead(runtime, blocks=int(20 * scale) or 2, block=500)
    py_call, py_async_call, rust_call = binding_round_trip(runtime, repeats=int(20 * scale) or 2)
    one_thread = threads_throughput(runtime, 1, int(400 * scale) or 20)
    eight_threads = threads_throughput(runtime, 8, int(50 * scale) or 3)
    cli = subprocess_loop(args.coderun, int(200 * scale) or 10) if args.coderun else None
    ray_rates = ray_throughput(int(2000 * scale) or 100, cache)

    rows = [
        ("overhead per run: `run_sync(\"return 1 + 1\")`", us(sync_run),
         f"{sync_run / rust_run:.2f}× the Rust library ({us(rust_run)}, same runtime)", "≤ 1.5×"),
        ("overhead per run: `await run(\"return 1 + 1\")`, one after another", us(async_run),
         f"{async_run / rust_run:.2f}× the Rust library", "—"),
        ("binding round trip, a plain Python function (1,000 awaited calls in a run), per call",
         us(py_call), f"{py_call / rust_call:.2f}× a Rust binding ({us(rust_call)})", "—"),
        ("binding round trip, an `async def` on the awaiting loop, per call",
         us(py_async_call), f"{py_async_call / rust_call:.2f}× a Rust binding", "—"),
        ("8 threads calling `run_sync` (a 200k-iteration loop each run)", f"{eight_threads:,.0f} runs/s",
         f"{eight_threads / one_thread:.2f}× 1 thread ({one_thread:,.0f} runs/s)", "scales on the cores"),
        ("`coderun.ray` `Pool.map`, 2 workers (the same loop)", f"{ray_rates[2]:,.0f} runs/s",
         f"{ray_rates[2] / ray_rates[1]:.2f}× 1 worker ({ray_rates[1]:,.0f} runs/s)", "—"),
    ]
    if cli is not None:
        profile = "a debug build of the CLI" if "/debug/" in args.coderun else "the release CLI"
        rows.append((f"`subprocess.run([\"coderun\", \"run\", \"-\"])` loop, `return 1 + 1` ({profile}, compile cache warm)",
                     us(cli), f"{cli / sync_run:.0f}× `run_sync`", "—"))
    lines = [
        "## The Python package (`make bench-python`)",
        "",
        f"Written by `make bench-python` (benches/python/bench.py), {time.strftime('%Y-%m-%d')}: a release build "
        "of the package (its wheel), the default configuration. Each ratio is between two figures of the same "
        "run; the per-run and round-trip figures are medians of blocks interleaved with their Rust baseline "
        "in one process.",
        "",
        "| benchmark | figure | ratio in the same run | target |",
        "|---|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    lines += ["", f"Machine: {machine.describe(load)}; Python {sys.version.split()[0]}."]
    table = "\n".join(lines)
    print(table)
    if not args.quick:
        write(table)
    runtime.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
