#!/usr/bin/env python3
"""Summarise the criterion results of benches/runtime.rs as a markdown table.

Reads target/criterion/*/new/estimates.json (median point estimates), prints
the table and writes it to benches/RESULTS.md. Every ratio is between two
benchmarks measured in the same `cargo bench` run.
"""
import json
import pathlib
import platform
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
import os
CRITERION = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "criterion"


def median_ns(group, bench=None):
    path = CRITERION / group
    if bench is not None:
        path = path / bench
    with open(path / "new" / "estimates.json") as f:
        return json.load(f)["median"]["point_estimate"]


def fmt(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} µs"


def main():
    cold = median_ns("cold_run_return_1_plus_1")
    calls = median_ns("binding_round_trip_1000", "binding_calls")
    resolved = median_ns("binding_round_trip_1000", "baseline_resolved_promises")
    fib_wasm = median_ns("fib27", "coderun_wasm")
    fib_native = median_ns("fib27", "native_quickjs")
    abort = median_ns("abort_latency", "abort_spinning_program")
    per_call = (calls - resolved) / 1000
    rows = [
        ("cold run of `return 1 + 1`, end to end", fmt(cold), "—", "target < 150 µs"),
        ("binding round trip (1,000 awaited calls in one run)", f"{fmt(per_call)} per call",
         f"{calls / resolved:.2f}× the same loop awaiting resolved promises", "target < 5 µs per call"),
        ("fib(27)", fmt(fib_wasm), f"{fib_wasm / fib_native:.2f}× native QuickJS ({fmt(fib_native)})",
         "target ≤ 1.5× (fuel off), ≤ 2× (fuel on)"),
        ("abort latency of a spinning program", fmt(abort), f"{abort / cold:.1f}× a cold run",
         "target < 10 ms"),
    ]
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    lines = [
        "| benchmark | coderun (median) | ratio in the same run | target |",
        "|---|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    lines.append("")
    lines.append(f"Machine: {cpu}, {platform.machine()}, {subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores; "
                 f"{rustc}; wasmtime 48.0.8, rquickjs 0.14.0 (quickjs-ng); fuel on.")
    table = "\n".join(lines)
    print(table)
    (ROOT / "benches" / "RESULTS.md").write_text(
        "# Benchmark results\n\nWritten by `make bench` (benches/report.py) from criterion's medians.\n\n"
        + (os.environ.get("CODERUN_BENCH_NOTE", "") + "\n\n" if os.environ.get("CODERUN_BENCH_NOTE") else "")
        + table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
