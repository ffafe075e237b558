#!/usr/bin/env python3
"""The driver of `make bench-peers`: runs every peer harness, prints one
table of ratios (coderun ÷ peer, with the raw figures) and writes it, with
the machine and the versions, into benches/RESULTS.md between the
`<!-- peers:begin -->` and `<!-- peers:end -->` markers (appended when
missing; benches/report.py keeps that section when it rewrites the file), and
into the README's copy of it, between the same markers.

Each harness prints one JSON object, `{"<peer>": {"version": …,
"<workload>": {…}}}`, and its progress on stderr. W4 (1,000 concurrent runs)
runs in a process of its own, so that what the other workloads left resident
does not hide what the concurrent runs take; so does the MCP workload, which
only the coderun harness has (its peer is a direct MCP client, in the same
process) and which needs `make mcp-servers`.

Usage: run.py [--cargo CARGO]   (from anywhere; after `make bench-peers`'s setup)

It builds the coderun harness first (`cargo bench --bench peers --no-run`),
then runs the built executable itself.
"""
import argparse
import datetime
import json
import os
import pathlib
import shlex
import subprocess
import sys
import time
from statistics import median

PEERS_DIR = pathlib.Path(__file__).resolve().parent
ROOT = PEERS_DIR.parent.parent
sys.path.insert(0, str(ROOT / "benches"))
import machine  # noqa: E402  (benches/machine.py, shared with report.py)
RESULTS = ROOT / "benches" / "RESULTS.md"
README = ROOT / "README.md"
BEGIN, END = "<!-- peers:begin -->", "<!-- peers:end -->"
# Every workload but W4 and MCP, then W4 alone, then MCP alone. W1 and W6
# share a process, so that W6's ratio to W1 compares like with like.
SPLIT = [["cold", "typical", "calls", "cpu", "abort"], ["concurrent"], ["mcp"]]
ALL_WORKLOADS = {workload for workloads in SPLIT for workload in workloads}
# W7 runs apart from the rest: each harness once per core count, its CPU
# affinity set to that many cores (quickjs-emscripten, which runs on one
# thread, as one process per core).
THROUGHPUT = "throughput"
# W7 for coderun as one process per core (the machine's scaling).
PER_CORE = "throughput_one_process_per_core"
# W7's `return 1 + 1` in one coderun process with a runtime per core
# (reported by the harness with its throughput figures).
PER_CORE_RUNTIME = "cold_runtime_per_core"
# coderun's W7 rounds (see measure_throughput).
THROUGHPUT_ROUNDS = 3
# The upstream of the MCP workload, installed by `make mcp-servers`.
MEMORY_SERVER = (ROOT / "tools" / "mcp-servers" / "node_modules" / "@modelcontextprotocol"
                 / "server-memory" / "dist" / "index.js")
HARNESS_TIMEOUT_S = 300

CODERUN, WORKER, QJSEM, NATIVE, NODE = (
    "coderun", "node worker", "quickjs-emscripten", "native QuickJS", "node")
PEERS = [WORKER, QJSEM, NATIVE, NODE]
# W3's programs; each figure is the best of several runs (the JSON also has the median).
CPU = [("fib", "fib(27)"), ("json", "10k objects through JSON"), ("sort", "sort 100k numbers")]


def progress(message):
    print(message, file=sys.stderr, flush=True)


def run_harness(label, command, results, failures):
    """Runs one harness command and merges its JSON into `results`."""
    workloads = [arg for arg in command if arg in ALL_WORKLOADS]
    progress(f"{label}: {' '.join(workloads) or 'its workloads'}")
    start = time.monotonic()
    report = harness_report(label, subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                                                    text=True), failures)
    progress(f"{label}: {time.monotonic() - start:.1f} s")
    for peer, figures in (report or {}).items():
        results.setdefault(peer, {}).update(figures)


def harness_report(label, process, failures):
    """The JSON object that a started harness prints last, or None (with
    the reason in `failures`)."""
    try:
        stdout, _ = process.communicate(timeout=HARNESS_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        failures.append(f"{label} timed out after {HARNESS_TIMEOUT_S} s")
        return None
    if process.returncode != 0:
        failures.append(f"{label} exited with {process.returncode}")
        return None
    try:
        return json.loads(stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        failures.append(f"{label} printed no JSON report")
        return None


def core_counts():
    """W7's core counts: 1, 2 and every usable core (when more than 2)."""
    usable = len(os.sched_getaffinity(0))
    return sorted({1, min(2, usable), usable})


def pinned(command, cores):
    """Starts `command` with its CPU affinity set to `cores`."""
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            preexec_fn=lambda: os.sched_setaffinity(0, cores))


def measure_throughput(coderun_bin, results, failures):
    """W7 for each core count k: the Node worker pool as one process allowed
    k cores; quickjs-emscripten, which runs on its one thread, as k
    processes at once, one per core, whose rates add up. coderun as one
    process allowed k cores, and as k processes, one per core (the
    machine's own scaling), in THROUGHPUT_ROUNDS rounds.
    Stored as results[peer]["throughput"][str(k)] (coderun's: each
    statistic's median over the rounds, the rounds themselves under
    results[coderun]["throughput_rounds"])."""
    usable = sorted(os.sched_getaffinity(0))
    counts = core_counts()
    for count in counts:
        cores = usable[:count]
        progress(f"W7 throughput on {count} core(s): the peers")
        command = ["node", str(PEERS_DIR / "node_worker.mjs"), THROUGHPUT]
        report = harness_report(WORKER, pinned(command, set(cores)), failures)
        figures = (report or {}).get(WORKER, {}).get(THROUGHPUT)
        if figures:
            results.setdefault(WORKER, {}).setdefault(THROUGHPUT, {})[str(count)] = figures
        command = ["node", str(PEERS_DIR / "quickjs_emscripten.mjs"), THROUGHPUT]
        summed = per_core_processes(QJSEM, command, cores, failures)
        if summed:
            results.setdefault(QJSEM, {}).setdefault(THROUGHPUT, {})[str(count)] = summed
    # coderun's core counts are measured back to back, round after round:
    # on a shared host the neighbours' load moves over minutes, so a
    # scaling is taken within a round, and the median round's reported.
    rounds = []
    command = [coderun_bin, THROUGHPUT]
    for index in range(THROUGHPUT_ROUNDS):
        measured = {}
        for count in counts:
            cores = usable[:count]
            progress(f"W7 throughput on {count} core(s): coderun, round {index + 1} of "
                     f"{THROUGHPUT_ROUNDS}")
            report = harness_report(CODERUN, pinned(command, set(cores)), failures)
            figures = (report or {}).get(CODERUN, {}).get(THROUGHPUT)
            if figures:
                measured[str(count)] = figures
            if count > 1:
                # The machine's own scaling, for coderun's to be read
                # against: coderun as independent processes, one per core,
                # which share nothing but the machine (its caches, its
                # memory bus, and the neighbours' load on a shared host).
                summed = per_core_processes(CODERUN, command, cores, failures)
                if summed:
                    measured[f"{PER_CORE} {count}"] = summed
        rounds.append(measured)
    coderun = results.setdefault(CODERUN, {})
    coderun["throughput_rounds"] = rounds
    for count in counts:
        for key, field in [(str(count), THROUGHPUT), (f"{PER_CORE} {count}", PER_CORE)]:
            measured = [r[key] for r in rounds if key in r]
            if measured:
                coderun.setdefault(field, {})[str(count)] = {
                    program: {stat: median([m[program][stat] for m in measured])
                              for stat in ("best", "median")}
                    for program in ("cold", "typical")}


def round_scaling(results, program, field, count):
    """The median over coderun's W7 rounds of a round's `field` rate on
    `count` cores (PER_CORE: its processes one per core; PER_CORE_RUNTIME:
    one process with a runtime per core, over the same on one core) over
    its rate on one core; None without a round that has both."""
    ratios = []
    for measured in get(results, CODERUN, "throughput_rounds") or []:
        one = (measured.get("1") or {}).get(program, {}).get("best")
        if field == PER_CORE_RUNTIME:
            # A runtime per core on one core and on `count`, both from the
            # harness's own runs at those core counts.
            one = (measured.get("1") or {}).get(PER_CORE_RUNTIME, {}).get("best")
            many = (measured.get(str(count)) or {}).get(PER_CORE_RUNTIME, {}).get("best")
        else:
            key = str(count) if field == THROUGHPUT else f"{PER_CORE} {count}"
            many = (measured.get(key) or {}).get(program, {}).get("best")
        if one and many is not None:
            ratios.append(many / one)
    return median(ratios) if ratios else None


def scaling_cell(scaling, ceiling):
    """A W7 scaling as the table shows it: the ratio, and its share of the
    machine's own (`ceiling`) when both were measured."""
    if scaling is None:
        return "—"
    if not ceiling:
        return f"{scaling:.2f}×"
    return f"{scaling:.2f}× ({scaling / ceiling:.2f}× the machine's)"


def per_core_processes(label, command, cores, failures):
    """W7 as one process per core, all at once, each pinned to its core:
    their rates added up, window statistic by window statistic (they ran
    at the same time); None when one of them failed."""
    processes = [pinned(command, {core}) for core in cores]
    reports = [harness_report(label, process, failures) for process in processes]
    figures = [(report or {}).get(label, {}).get(THROUGHPUT) for report in reports]
    if not all(figures):
        return None
    summed = {program: {stat: sum(f[program][stat] for f in figures)
                        for stat in ("best", "median")}
              for program in ("cold", "typical")}
    summed.update(cores=len(cores), processes=len(cores))
    return summed


def build_coderun(cargo):
    """Builds the coderun harness (benches/peers/coderun.rs) with the bench
    profile and returns its executable, which is then run directly, so that
    no measurement can wait on a rebuild."""
    progress("coderun: building the harness (cargo bench --bench peers --no-run)")
    start = time.monotonic()
    done = subprocess.run(
        shlex.split(cargo) + ["bench", "--locked", "--bench", "peers", "--no-run",
                              "--message-format=json-render-diagnostics"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"building the coderun harness failed (exit {done.returncode})")
    progress(f"coderun: built in {time.monotonic() - start:.1f} s")
    for line in done.stdout.splitlines():
        message = json.loads(line)
        if (message.get("reason") == "compiler-artifact"
                and message["target"]["name"] == "peers" and message.get("executable")):
            return message["executable"]
    sys.exit("cargo reported no executable for the peers bench")


def measure(coderun_bin):
    results, failures = {}, []
    without_mcp = ALL_WORKLOADS - {"mcp"}
    coderun_workloads = ALL_WORKLOADS
    if not MEMORY_SERVER.is_file():
        failures.append("MCP not measured: the MCP servers are not installed (`make mcp-servers`)")
        coderun_workloads = without_mcp
    harnesses = [
        (CODERUN, [coderun_bin], coderun_workloads),
        (WORKER, ["node", str(PEERS_DIR / "node_worker.mjs")], without_mcp),
        (QJSEM, ["node", str(PEERS_DIR / "quickjs_emscripten.mjs")], without_mcp),
    ]
    for label, command, known in harnesses:
        for workloads in SPLIT:
            workloads = [workload for workload in workloads if workload in known]
            if workloads:
                run_harness(label, command + workloads, results, failures)
    run_harness(NODE, ["node", str(PEERS_DIR / "node_plain.mjs")], results, failures)
    measure_throughput(coderun_bin, results, failures)
    return results, failures


# ---- formatting ----

def fmt_ms(ms):
    if ms is None:
        return "—"
    if ms < 1:
        return f"{ms * 1000:.0f} µs" if ms >= 0.01 else f"{ms * 1000:.2f} µs"
    if ms < 1000:
        return f"{ms:.1f} ms" if ms < 100 else f"{ms:.0f} ms"
    return f"{ms / 1000:.2f} s"


def fmt_us(us):
    return "—" if us is None else fmt_ms(us / 1000)


def fmt_ratio(ours, theirs):
    if ours is None or theirs is None or theirs == 0:
        return None
    r = ours / theirs
    return f"{r:.3f}×" if r < 0.1 else f"{r:.2f}×"


def get(results, peer, *path):
    value = results.get(peer)
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def verdict(checks):
    """'met', or 'not met (…)' naming each failed check; 'not measured' when
    a figure is missing. `checks` is a list of (name, bool or None)."""
    missing = [name for name, ok in checks if ok is None]
    failed = [name for name, ok in checks if ok is False]
    if failed:
        return "**not met** (" + "; ".join(failed) + ")"
    if missing:
        return "not measured (" + "; ".join(missing) + ")"
    return "met"


def compare(value, op, bound):
    return None if value is None else op(value, bound)


def table(results):
    """The markdown table: one row per figure, a column per peer."""
    le = lambda a, b: a <= b
    lt = lambda a, b: a < b
    rows = []

    def row(label, figure, fmt, target, met, peers=PEERS, note=None):
        """`note`, when given, follows coderun's figure in its cell."""
        ours = figure(CODERUN)
        cells = [fmt(ours) + (f" ({note})" if note and ours is not None else "")]
        for peer in PEERS:
            theirs = figure(peer) if peer in peers else None
            if theirs is None:
                cells.append("—")
                continue
            ratio = fmt_ratio(ours, theirs)
            cells.append(f"{fmt(theirs)} ({ratio})" if ratio else fmt(theirs))
        rows.append([label] + cells + [target, met])

    def targeted(label, figure, fmt, checks, peers=PEERS, note=None):
        """A row whose target is its checks, named in order."""
        row(label, figure, fmt, "; ".join(name for name, _ in checks), verdict(checks), peers,
            note)

    def ratio_of(peer, figure):
        ours, theirs = figure(CODERUN), figure(peer)
        return None if ours is None or theirs is None else ours / theirs

    # W1
    p50 = lambda peer: get(results, peer, "cold", "p50_us")
    targeted("W1 cold run `return 1 + 1`, p50", p50, fmt_us,
             [("p50 ≤ 35 µs", compare(p50(CODERUN), le, 35)),
              ("≤ 0.01× node worker", compare(ratio_of(WORKER, p50), le, 0.01)),
              ("≤ 0.2× quickjs-emscripten", compare(ratio_of(QJSEM, p50), le, 0.2))],
             peers=[WORKER, QJSEM])
    row("W1 cold run, p99", lambda peer: get(results, peer, "cold", "p99_us"), fmt_us, "", "",
        peers=[WORKER, QJSEM])
    row("W1 runs/s, one after another (ratio > 1: coderun faster)",
        lambda peer: get(results, peer, "cold", "runs_per_s"),
        lambda v: "—" if v is None else f"{v:,.0f}", "", "", peers=[WORKER, QJSEM])

    # W2
    per_call = lambda peer: get(results, peer, "calls", "us_per_call")
    targeted("W2 binding round trip (1,000 awaited calls in a run), per call", per_call, fmt_us,
             [("≤ 1.5 µs", compare(per_call(CODERUN), le, 1.5)),
              ("below node worker", compare(ratio_of(WORKER, per_call), lt, 1)),
              ("below quickjs-emscripten", compare(ratio_of(QJSEM, per_call), lt, 1))],
             peers=[WORKER, QJSEM])

    # W3
    def total_ms(figures):
        def total(peer):
            parts = [figures(name)(peer) for name, _ in CPU]
            return None if None in parts else sum(parts)
        return total

    # coderun's fuel-off figures (`cpu_fuel_off`) against the peers' only ones.
    # The targets are on the total of the three.
    for key, fuel, bound in [("cpu", "fuel on", 1.6), ("cpu_fuel_off", "fuel off", 1.4)]:
        def figures(name, key=key):
            return lambda peer: get(results, peer, key if peer == CODERUN else "cpu", name, "ms")
        for name, label in CPU:
            row(f"W3 {label}, {fuel}", figures(name), fmt_ms, "", "")
        figure = total_ms(figures)
        targeted(f"W3 total of the three, {fuel}", figure, fmt_ms,
                 [(f"≤ {bound}× native QuickJS", compare(ratio_of(NATIVE, figure), le, bound))])

    # W4
    def per_run(peer):
        return get(results, peer, "concurrent", "mib_per_run")

    def fmt_mib(peer):
        def fmt(v):
            if v is None:
                return "—"
            done = get(results, peer, "concurrent", "completed")
            runs = get(results, peer, "concurrent", "runs")
            return f"{v:.3f} MiB, {done}/{runs} done"
        return fmt

    ours_done = get(results, CODERUN, "concurrent", "completed")
    w4 = [("≤ 0.1 MiB per run", compare(per_run(CODERUN), le, 0.1)),
          ("all 1,000 complete", None if ours_done is None else ours_done == 1000)]
    cells = [fmt_mib(CODERUN)(per_run(CODERUN))]
    for peer in PEERS:
        theirs = per_run(peer) if peer in (WORKER, QJSEM) else None
        ratio = fmt_ratio(per_run(CODERUN), theirs)
        cell = "—" if theirs is None else fmt_mib(peer)(theirs)
        cells.append(f"{cell} ({ratio})" if ratio else cell)
    rows.append(["W4 1,000 concurrent runs, each awaiting a binding: memory per run (PSS)"] + cells
                + ["≤ 0.1 MiB per run; all 1,000 complete", verdict(w4)])
    row("W4 resident set per run (RSS: a page shared by several mappings counts once in each)",
        lambda peer: get(results, peer, "concurrent", "rss_mib_per_run"),
        lambda v: "—" if v is None else f"{v:.3f} MiB", "", "", peers=[WORKER, QJSEM])
    row("W4 total time", lambda peer: get(results, peer, "concurrent", "total_ms"), fmt_ms,
        "", "", peers=[WORKER, QJSEM])

    # W5
    row("W5 abort latency of `while (true) {}`, p50",
        lambda peer: get(results, peer, "abort", "p50_ms"), fmt_ms, "", "", peers=[WORKER, QJSEM])
    worst = lambda peer: get(results, peer, "abort", "max_ms")
    targeted("W5 abort latency, worst", worst, fmt_ms,
             [("< 10 ms", compare(worst(CODERUN), lt, 10))], peers=[WORKER, QJSEM])

    # W6
    w6_p50 = lambda peer: get(results, peer, "typical", "p50_us")
    w1_p50 = p50(CODERUN)
    of_w1 = None if w1_p50 is None or w6_p50(CODERUN) is None else w6_p50(CODERUN) / w1_p50
    targeted("W6 typical agent program (≈40 lines of TS, 10 calls, 1,000 items), cold, p50",
             w6_p50, fmt_us,
             [("≤ 2.5× coderun's W1 p50", compare(of_w1, le, 2.5)),
              ("≤ 0.5× quickjs-emscripten", compare(ratio_of(QJSEM, w6_p50), le, 0.5))],
             peers=[WORKER, QJSEM], note=None if of_w1 is None else f"{of_w1:.2f}× W1")
    row("W6 typical agent program, p99", lambda peer: get(results, peer, "typical", "p99_us"),
        fmt_us, "", "", peers=[WORKER, QJSEM])

    # W7
    counts = core_counts()
    rate = lambda v: "—" if v is None else f"{v:,.0f}/s"
    for key, label in [("cold", "`return 1 + 1`"), ("typical", "W6")]:
        for count in counts:
            row(f"W7 {label} runs per second on {count} core{'s' if count > 1 else ''}, "
                "best 1 s window (ratio > 1: coderun faster)",
                lambda peer, c=count, k=key: get(results, peer, THROUGHPUT, str(c), k, "best"),
                rate, "", "", peers=[WORKER, QJSEM])
        if len(counts) > 1:
            scaling = round_scaling(results, key, THROUGHPUT, counts[1])
            ceiling = round_scaling(results, key, PER_CORE, counts[1])
            rows.append([f"W7 {label}: coderun's scaling from 1 to {counts[1]} cores "
                         "(and as a share of the machine's, below)",
                         scaling_cell(scaling, ceiling)]
                        + ["—"] * len(PEERS)
                        + ["≥ 1.8× from 1 to 2 cores",
                           verdict([("≥ 1.8×", compare(scaling, lambda a, b: a >= b, 1.8))])])
            rows.append([f"W7 {label}: the machine's scaling from 1 to {counts[1]} cores, "
                         f"coderun as {counts[1]} processes, one per core, rates added",
                         "—" if ceiling is None else f"{ceiling:.2f}×"]
                        + ["—"] * len(PEERS) + ["", ""])
            if key == "cold":
                per_core = round_scaling(results, key, PER_CORE_RUNTIME, counts[1])
                rows.append([f"W7 {label}: coderun's scaling from 1 to {counts[1]} cores with "
                             "a thread and a `WasmCodeRuntime` per core (one process)",
                             scaling_cell(per_core, ceiling)]
                            + ["—"] * len(PEERS) + ["", ""])

    # MCP: the peer is a direct client, measured by the coderun harness.
    run_code = get(results, CODERUN, "mcp", "run_code_p50_ms")
    direct = get(results, CODERUN, "mcp", "direct_p50_ms")
    ratio = None if run_code is None or direct is None or direct == 0 else run_code / direct
    cell = "—" if ratio is None else f"{fmt_ms(run_code)} vs {fmt_ms(direct)} direct ({ratio:.2f}×)"
    rows.append(["MCP: a run_code making 5 calls to a local upstream vs 5 direct calls, "
                 "per batch, p50", cell] + ["—"] * len(PEERS)
                + ["≤ 1.2× direct", verdict([("≤ 1.2× direct", compare(ratio, le, 1.2))])])

    header = ["workload", "coderun"] + PEERS + ["target", "met?"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def check_cpu_values(results):
    """Every peer must compute the same W3 checksums."""
    problems = []
    for name, _ in CPU:
        values = {peer: get(results, peer, "cpu", name, "value") for peer in [CODERUN] + PEERS}
        values["coderun, fuel off"] = get(results, CODERUN, "cpu_fuel_off", name, "value")
        seen = {json.dumps(v) for v in values.values() if v is not None}
        if len(seen) > 1:
            problems.append(f"W3 {name}: the peers disagree: {values}")
    return problems


# ---- machine and versions ----

def command_output(*command):
    try:
        return subprocess.run(command, capture_output=True, text=True, cwd=ROOT).stdout.strip()
    except OSError:
        return "unknown"


def versions(results):
    return "; ".join([
        command_output("rustc", "--version"),
        f"wasmtime {machine.locked_version('wasmtime')}",
        f"rquickjs {machine.locked_version('rquickjs')} (quickjs-ng; native QuickJS is the same crate built for the host)",
        get(results, WORKER, "version") or "node (not run)",
        get(results, QJSEM, "version") or "quickjs-emscripten (not run)",
    ])


def section(results, failures, load):
    today = datetime.date.today().isoformat()
    fuel = get(results, CODERUN, "fuel")
    fuel = f"{fuel:,} units" if isinstance(fuel, int) else "default"
    lines = [
        BEGIN,
        "## Side by side with the peers (`make bench-peers`)",
        "",
        f"Written by `make bench-peers` (benches/peers/run.py), {today}. Each cell is the peer's "
        "figure and, in brackets, coderun ÷ peer: below 1 coderun is faster or smaller "
        "(runs/s: above 1). The workloads are the files in benches/peers/programs/; every peer "
        "computes the same W3 checksums, and W3's times are each the best of several runs: of 10 for "
        "coderun and native QuickJS, measured in one process and interleaved run by run (so that a "
        "slow spell of this shared machine falls on all three alike), of 5 for the Node-hosted peers. "
        "coderun is the release build with the default "
        f"configuration (fuel on, {fuel}); its W3 is also measured with fuel metering off "
        "(`RuntimeConfig::fuel_metering(false)`: the budget is not enforced). W6 runs "
        "programs/typical.ts on coderun (its host strips the types) and typical.js, the same "
        "program without them, on the peers; every harness checks its result against "
        "typical.expected.json. The MCP row is measured by the coderun harness alone: an MCP "
        "client calls the memory server's `read_graph` 5 times directly, then sends `coderun mcp` "
        "(in front of another copy of that server) one `run_code` making the same 5 calls, "
        "alternately, batch after batch. W4's memory is the growth of the process's proportional "
        "set size (PSS) while the 1,000 runs are parked; its resident set (RSS) counts each page "
        "shared by several mappings once per mapping, which for coderun is the guest's memory "
        "image, mapped once per run. W7 counts the runs that end in each of five 1 s windows, after "
        "0.5 s of warm-up, and reports the best window (the JSON also has the median), with the process's CPU affinity set to that many cores: coderun with one tokio "
        "worker thread per core and two runs in flight per worker, the Node worker pool with two "
        "runs in flight per core, and quickjs-emscripten, whose interpreter runs on Node's one "
        "thread, as one process per core, their rates added. coderun is also run that way, as "
        "independent processes, one per core: their scaling is the machine's own (what its caches, "
        "memory bus and neighbours allow), which coderun's in one process is read against; and "
        "`return 1 + 1` once more in one process with a thread, a current-thread tokio runtime "
        "and a `WasmCodeRuntime` of one instance pool per core, two runs in flight on each, for "
        "W7's one runtime (whose instance pools, one per core by default, keep each core on its "
        "own slots) to be read against. "
        f"coderun's core counts are measured back to back in {THROUGHPUT_ROUNDS} rounds (the "
        "neighbours' load on a shared host moves over minutes): its rates are each window "
        "statistic's median over the rounds, and a scaling is the median of the rounds' own. The "
        "targets are the second round's "
        "(`benches/OPTIMISATIONS.md`).",
        "",
        table(results),
        "",
        f"Machine: {machine.describe(load)}. Versions: {versions(results)}.",
    ]
    if failures:
        lines += ["", "Failures in this run: " + "; ".join(failures) + "."]
    lines.append(END)
    return "\n".join(lines)


def write_results(text):
    """Writes the section into benches/RESULTS.md (appended when its markers
    are missing) and into the README's copy, between the same markers."""
    old = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    RESULTS.write_text(replace_section(old, text) or old.rstrip("\n") + "\n\n" + text + "\n")
    readme = README.read_text()
    updated = replace_section(readme, text)
    if updated is None:
        progress(f"{README.relative_to(ROOT)} has no {BEGIN} section: not updated")
    else:
        README.write_text(updated)


def replace_section(old, text):
    """`old` with its section between the markers replaced by `text`, or
    None when it has no such section."""
    if BEGIN not in old or END not in old:
        return None
    head, rest = old.split(BEGIN, 1)
    return head + text + rest.split(END, 1)[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cargo", default=os.environ.get("CARGO", "cargo"),
                        help="the cargo command (default: $CARGO or cargo)")
    args = parser.parse_args()
    if not (PEERS_DIR / "node_modules" / "quickjs-emscripten").is_dir():
        sys.exit("benches/peers/node_modules is missing: run `make bench-peers`")
    coderun_bin = build_coderun(args.cargo)
    # Taken before the harnesses run (W4's 1,000 worker threads inflate it),
    # it tells a reader whether other work shared the machine.
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    results, failures = measure(coderun_bin)
    failures += check_cpu_values(results)
    text = section(results, failures, load)
    print(text)
    write_results(text)
    progress(f"wrote {RESULTS.relative_to(ROOT)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
