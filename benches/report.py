#!/usr/bin/env python3
"""Summarise the criterion results of benches/runtime.rs as a markdown table.

Reads target/criterion/*/new/estimates.json (median point estimates), prints
the table and writes it to benches/RESULTS.md. Every ratio is between two
benchmarks measured in the same `cargo bench` run.
"""
import json
import os
import pathlib
import subprocess
import sys

import machine

ROOT = pathlib.Path(__file__).resolve().parent.parent
CRITERION = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "criterion"
PEERS_BEGIN, PEERS_END = "<!-- peers:begin -->", "<!-- peers:end -->"
PYTHON_BEGIN, PYTHON_END = "<!-- python:begin -->", "<!-- python:end -->"


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
    cold = median_ns("cold_run", "return_1_plus_1")
    cold_new = median_ns("cold_run", "return_1_plus_1_new_source")
    typical = median_ns("cold_run", "typical_program")
    registry = median_ns("cold_run", "return_1_plus_1_100_tools")
    calls = median_ns("binding_round_trip_1000", "binding_calls")
    resolved = median_ns("binding_round_trip_1000", "baseline_resolved_promises")
    transform_small = median_ns("transform", "return_1_plus_1")
    transform_typical = median_ns("transform", "typical_program")
    transform_agent = median_ns("transform", "agent_program")
    transform_agent_full = median_ns("transform", "agent_program_full_transform")
    fib_wasm = median_ns("fib27", "coderun_wasm")
    fib_unmetered = median_ns("fib27", "coderun_wasm_fuel_off")
    fib_native = median_ns("fib27", "native_quickjs")
    abort = median_ns("abort_latency", "abort_spinning_program")
    live = median_ns("durable_100_calls", "live_recorded")
    replay = median_ns("durable_100_calls", "replay")
    continuation = int((CRITERION / "durable_100_calls" / "continuation_bytes").read_text())
    per_call = (calls - resolved) / 1000
    rows = [
        ("cold run of `return 1 + 1`, end to end", fmt(cold), "—", "target ≤ 35 µs"),
        ("cold run of `return 1 + 1`, a new source every run (parsed every run; no type syntax, so it runs as written)", fmt(cold_new),
         f"{cold_new / cold:.2f}× the same source (transform cached)", "—"),
        ("cold run of `return 1 + 1` given a registry of 100 tools, none of them called", fmt(registry),
         f"{registry / cold:.2f}× without them ({fmt((registry - cold) / 100)} a tool)", "—"),
        ("cold run of a typical 20-line program", fmt(typical), f"{typical / cold:.2f}× `return 1 + 1`", "—"),
        ("TypeScript front end alone (oxc): `return 1 + 1` (parse and check only) / typical typed program (parse, types erased in place)",
         f"{fmt(transform_small)} / {fmt(transform_typical)}",
         f"{transform_small / cold_new:.3f}× / {transform_typical / typical:.3f}× the matching cold run", "—"),
        ("TypeScript front end for W6's 47-line agent program (`benches/peers/programs/typical.ts`): types erased in place",
         fmt(transform_agent),
         f"{transform_agent / transform_agent_full:.2f}× oxc's full transform of it ({fmt(transform_agent_full)})",
         "target ≤ 15 µs"),
        ("binding round trip (1,000 awaited calls in one run)", f"{fmt(per_call)} per call",
         f"{calls / resolved:.2f}× the same loop awaiting resolved promises", "target ≤ 1.5 µs per call"),
        ("fib(27), fuel on", fmt(fib_wasm), f"{fib_wasm / fib_native:.2f}× native QuickJS ({fmt(fib_native)})",
         "target ≤ 1.6× (W3's, on the total of three programs)"),
        ("fib(27), fuel off", fmt(fib_unmetered), f"{fib_unmetered / fib_native:.2f}× native QuickJS",
         "target ≤ 1.4× (W3's, on the total of three programs)"),
        ("abort latency of a spinning program", fmt(abort), f"{abort / cold:.1f}× a cold run",
         "target < 10 ms"),
        ("replay of a 100-call record (no binding called) / the live recorded run", f"{fmt(replay)} / {fmt(live)}",
         f"{replay / live:.2f}× the live run", "—"),
        ("continuation of that run, interrupted at call 101 (JSON)", f"{continuation / 1024:.1f} KiB",
         f"{continuation / 100:.0f} bytes per recorded call", "—"),
    ]
    fetched = median_ns("egress_10_fetches", "fetch_in_a_program")
    direct = median_ns("egress_10_fetches", "reqwest_from_rust")
    rows.append((
        "10 `fetch`es of a small JSON document from a loopback server in one run (the policy checked "
        "at each; a cold run included) / the same 10 requests from Rust with reqwest",
        f"{fmt(fetched)} / {fmt(direct)}",
        f"{fetched / direct:.2f}× reqwest alone ({fmt((fetched - cold) / 10)} per fetch, the cold run taken off)",
        "—"))
    returned = json.loads((CRITERION / "returned_values" / "fuel.json").read_text())
    shapes = {"strings": "ten 100 KB strings", "numbers": "10,000 numbers", "objects": "2,000 small nested objects"}
    for shape, label in shapes.items():
        f = returned[shape]
        time = median_ns("returned_values", f"{shape}_returned")
        stringified = median_ns("returned_values", f"{shape}_stringified")
        rows.append((
            f"returning {label} ({f['bytes'] / 1024:.0f} KiB of JSON): fuel per byte of JSON (deterministic) / whole run",
            f"{f['fuel_per_byte']:.1f} / {fmt(time)}",
            f"{f['fuel_per_byte'] / f['stringify_fuel_per_byte']:.2f}× / {time / stringified:.2f}× the program returning the "
            f"length of QuickJS's own `JSON.stringify` of it ({f['stringify_fuel_per_byte']:.1f} per byte)",
            "target ≤ 20 fuel per byte"))
    for shape, label in shapes.items():
        f = returned[shape]
        rows.append((
            f"{label}, fuel per byte (deterministic): passed to a binding / received from a binding "
            f"(per byte of JSON) / printed by `console.log` (per byte of its {f['logged_bytes'] / 1024:.0f} KiB line)",
            f"{f['argument_fuel_per_byte']:.1f} / {f['result_fuel_per_byte']:.1f} / {f['logged_fuel_per_byte']:.1f}",
            f"{f['argument_fuel_per_byte'] / f['stringify_fuel_per_byte']:.2f}× / "
            f"{f['result_fuel_per_byte'] / f['stringify_fuel_per_byte']:.2f}× / "
            f"{f['logged_fuel_per_byte'] / f['stringify_fuel_per_byte']:.2f}× QuickJS's own `JSON.stringify` of it",
            "target ≤ 20 fuel per byte"))
    discovery = json.loads((CRITERION / "discovery_under_load" / "figures.json").read_text())
    alone, loaded = discovery["alone"], discovery["loaded"]
    rows.append((
        "`return 1` through `run_code` over 10,000 tools, alone / while 10 runs call "
        "`tools.$describe` with a 1 MB name in a loop: p50, p99",
        f"{alone['p50_ms']:.1f}, {alone['p99_ms']:.1f} ms / {loaded['p50_ms']:.1f}, {loaded['p99_ms']:.1f} ms",
        f"+{loaded['p99_ms'] - alone['p99_ms']:.1f} ms at p99",
        "target: ≤ 50 ms of delay at p99"))
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    lines = [
        "| benchmark | coderun (median) | ratio in the same run | target |",
        "|---|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    lines.append("")
    lines.append(f"Machine: {machine.describe()}; {rustc}; wasmtime {machine.locked_version('wasmtime')}, "
                 f"rquickjs {machine.locked_version('rquickjs')} (quickjs-ng); fuel on unless noted.")
    table = "\n".join(lines)
    print(table)
    results = ROOT / "benches" / "RESULTS.md"
    # Keep the sections `make bench-peers` (benches/peers/run.py) and
    # `make bench-python` (benches/python/bench.py) write.
    old = results.read_text() if results.exists() else ""
    peers = ""
    for begin, end in ((PEERS_BEGIN, PEERS_END), (PYTHON_BEGIN, PYTHON_END)):
        if begin in old and end in old:
            peers += "\n" + begin + old.split(begin, 1)[1].split(end, 1)[0] + end + "\n"
    results.write_text(
        "# Benchmark results\n\nWritten by `make bench` (benches/report.py) from criterion's medians.\n\n"
        + (os.environ.get("CODERUN_BENCH_NOTE", "") + "\n\n" if os.environ.get("CODERUN_BENCH_NOTE") else "")
        + table + "\n" + peers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
