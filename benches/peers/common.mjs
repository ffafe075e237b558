// What the Node-hosted harnesses of `make bench-peers` share: the workload
// programs, the measurement of each workload against a peer's `run`, and the
// JSON report (`runHarness`). benches/peers/coderun.rs measures coderun the same way.
//
// A peer is an object with `run(program, options)`, resolving with
// `{ value, logs }` or `{ error }` (never rejecting for a program's failure;
// `logs` are the program's `console.log` lines, each argument rendered by
// `String`), where `options.bindings` maps a global name to an object of
// async host functions, and `options.abortAfterMs`, when set, asks the peer
// to abort the run that many milliseconds after the program started; the
// result then carries `abortRequestedAt` (a `performance.now()` time) so
// that the latency from the request to the result can be measured.

import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { isDeepStrictEqual } from "node:util";

const here = new URL("./programs/", import.meta.url);

/** The workload programs of benches/peers/programs/, by file stem. */
export const programs = Object.fromEntries(
  ["cold", "calls", "calls-baseline", "fib", "json", "sort", "concurrent", "spin", "typical"].map(
    (name) => [name, readFileSync(new URL(`${name}.js`, here), "utf8")],
  ),
);

/** What `typical.js` returns and logs: `{ value, logs }`. */
const typicalExpected = JSON.parse(readFileSync(new URL("typical.expected.json", here), "utf8"));

/** The W3 programs, in report order. */
export const cpuPrograms = ["fib", "json", "sort"];

/** The binding every workload calls: resolves with its argument. */
export const echoTools = { echo: async (x) => x };

/** The pages `listTools.list` serves; the last one's `next` is null. */
const LIST_PAGES = 10;
const LABELS = ["bug", "feature", "docs", "question"];

/** Issue `id` of W6's tracker (`issue` in coderun.rs is the same generator). */
function issue(id) {
  const labels = [LABELS[id % 4]];
  if (id % 5 === 0) labels.push("urgent");
  return { id, state: id % 3 === 0 ? "closed" : "open", labels, comments: (id * 7) % 13 };
}

/** W6's binding: `tools.list({ page, size })`, a page of `size` issues. */
export const listTools = {
  list: async ({ page, size }) => ({
    items: Array.from({ length: size }, (_, i) => issue(page * size + i)),
    next: page + 1 < LIST_PAGES ? page + 1 : null,
  }),
};

export function progress(message) {
  process.stderr.write(`  ${message}\n`);
}

/** Nearest-rank percentile of `samples` (milliseconds), `p` in [0, 1]. */
export function percentile(samples, p) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

const median = (samples) => percentile(samples, 0.5);

/** Runs `program` once on `peer` and checks that it returned `expected`
 * (compared deeply) and, when given, logged `logs`. */
async function timedRun(peer, program, options, expected, logs) {
  const start = performance.now();
  const result = await peer.run(program, options);
  const ms = performance.now() - start;
  if (
    (expected !== undefined && !isDeepStrictEqual(result.value, expected)) ||
    (logs !== undefined && !isDeepStrictEqual(result.logs, logs))
  ) {
    throw new Error(`expected ${JSON.stringify({ value: expected, logs })}, got ${JSON.stringify(result)}`);
  }
  return { ms, result };
}

/** `runs` sequential cold runs of `program`, after `warmup`, each checked
 * to return `expected` and log `logs`. */
async function measureSequential(peer, program, options, { runs, warmup }, expected, logs) {
  for (let i = 0; i < warmup; i++) await timedRun(peer, program, options, expected, logs);
  const samples = [];
  const start = performance.now();
  for (let i = 0; i < runs; i++) samples.push((await timedRun(peer, program, options, expected, logs)).ms);
  const totalS = (performance.now() - start) / 1000;
  return {
    runs,
    p50_us: median(samples) * 1000,
    p99_us: percentile(samples, 0.99) * 1000,
    runs_per_s: runs / totalS,
  };
}

/** W1: `runs` sequential cold runs of `return 1 + 1`, after `warmup`. */
export function measureCold(peer, sizes) {
  return measureSequential(peer, programs.cold, {}, sizes, 2);
}

/** W6: `runs` sequential cold runs of the typical agent program (10
 * `tools.list` calls, 1,000 issues), after `warmup`, each checked against
 * typical.expected.json, which coderun.rs checks its runs against too. */
export function measureTypical(peer, sizes) {
  const { value, logs } = typicalExpected;
  return measureSequential(peer, programs.typical, { bindings: { tools: listTools } }, sizes, value, logs);
}

/** The binding calls `calls.js` makes. */
const CALLS_PER_RUN = 1000;

/** W2: the median run of 1,000 awaited binding calls, minus the median run
 * of the same loop awaiting resolved promises, per call. */
export async function measureCalls(peer, { reps }) {
  const options = { bindings: { tools: echoTools } };
  const calls = [];
  const baseline = [];
  for (let i = 0; i < reps + 1; i++) {
    const a = await timedRun(peer, programs.calls, options, 499500);
    const b = await timedRun(peer, programs["calls-baseline"], options, 499500);
    if (i > 0) {
      // the first pair is a warm-up
      calls.push(a.ms);
      baseline.push(b.ms);
    }
  }
  return {
    us_per_call: ((median(calls) - median(baseline)) * 1000) / CALLS_PER_RUN,
    run_ms: median(calls),
    baseline_ms: median(baseline),
  };
}

/** W3: each CPU program `reps` times (after one warm-up): the best time,
 * which on a shared machine is the least disturbed one, and the median. */
export async function measureCpu(peer, { reps }) {
  const out = {};
  for (const name of cpuPrograms) {
    const samples = [];
    let value;
    for (let i = 0; i < reps + 1; i++) {
      const { ms, result } = await timedRun(peer, programs[name], {});
      if (result.error !== undefined) throw new Error(`${name}: ${result.error}`);
      if (i > 0) samples.push(ms);
      value = result.value;
    }
    out[name] = { ms: Math.min(...samples), median_ms: median(samples), value };
  }
  return out;
}

/** W4: `runs` runs at once, each awaiting `tools.echo`, which holds every
 * call until all runs have made theirs; the resident set is sampled then,
 * with every run alive. */
export async function measureConcurrent(peer, { runs, timeoutMs = 120_000 }) {
  let arrived = 0;
  let allArrived;
  const barrier = new Promise((resolve) => (allArrived = resolve));
  let release;
  const released = new Promise((resolve) => (release = resolve));
  const tools = {
    echo: async (x) => {
      if (++arrived === runs) allArrived();
      await released;
      return x;
    },
  };
  // A few runs first, so that what any first run pages in is not counted.
  for (let i = 0; i < 3; i++) {
    await timedRun(peer, programs.concurrent, { bindings: { tools: echoTools } }, 1);
  }
  const before = memory();
  const start = performance.now();
  const pending = Array.from({ length: runs }, () =>
    peer.run(programs.concurrent, { bindings: { tools } }),
  );
  let timer;
  const timedOut = new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  await Promise.race([barrier, timedOut]);
  clearTimeout(timer);
  const peak = memory();
  release();
  const results = await Promise.all(pending);
  const totalMs = performance.now() - start;
  const deltaMib = (peak.pss - before.pss) / (1024 * 1024);
  const rssDeltaMib = (peak.rss - before.rss) / (1024 * 1024);
  return {
    runs,
    completed: results.filter((r) => r.value === 1).length,
    arrived,
    total_ms: totalMs,
    pss_delta_mib: deltaMib,
    mib_per_run: deltaMib / runs,
    rss_delta_mib: rssDeltaMib,
    rss_mib_per_run: rssDeltaMib / runs,
  };
}

/** The process's resident set (`rss`, which counts a page shared by
 * several mappings once per mapping) and proportional set size (`pss`,
 * which shares each such page out among them), in bytes (Linux). */
function memory() {
  const rollup = readFileSync("/proc/self/smaps_rollup", "utf8");
  const pss = Number(/^Pss:\s+(\d+) kB$/m.exec(rollup)[1]) * 1024;
  return { rss: process.memoryUsage.rss(), pss };
}

/** W5: from the abort request (`abortAfterMs` into a spinning program) to
 * the run's result. */
export async function measureAbort(peer, { reps, abortAfterMs = 20 }) {
  const samples = [];
  for (let i = 0; i < reps; i++) {
    const result = await peer.run(programs.spin, { abortAfterMs });
    const end = performance.now();
    if (result.error === undefined || result.abortRequestedAt === undefined) {
      throw new Error(`the spinning run was not aborted: ${JSON.stringify(result)}`);
    }
    samples.push(end - result.abortRequestedAt);
  }
  return { samples: reps, p50_ms: median(samples), max_ms: Math.max(...samples) };
}

/** W7's warm-up, then its measured windows, per program. */
const THROUGHPUT_WARMUP_MS = 500;
const THROUGHPUT_WINDOW_MS = 1000;
const THROUGHPUT_WINDOWS = 5;

/** `inFlight` loops of back-to-back runs of `program` through W7's warm-up
 * and its windows, each run checked: the runs per second that ended in the
 * best window (on a shared machine, the least disturbed one) and in the
 * median one. */
async function saturate(peer, program, options, inFlight, expected, logs) {
  const from = performance.now() + THROUGHPUT_WARMUP_MS;
  const counts = new Array(THROUGHPUT_WINDOWS).fill(0);
  const loop = async () => {
    for (;;) {
      await timedRun(peer, program, options, expected, logs);
      const end = performance.now();
      if (end < from) continue;
      const index = Math.floor((end - from) / THROUGHPUT_WINDOW_MS);
      if (index >= THROUGHPUT_WINDOWS) return;
      counts[index]++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  const rates = counts.map((count) => count / (THROUGHPUT_WINDOW_MS / 1000));
  return { best: Math.max(...rates), median: median(rates) };
}

/** W7: short runs completed per second, W1's and W6's, with `inFlight`
 * runs at once; the cores the process may use are reported alongside
 * (run.py sets its CPU affinity). */
export async function measureThroughput(peer, { inFlight }) {
  const { value, logs } = typicalExpected;
  const typicalOptions = { bindings: { tools: listTools } };
  return {
    cores: availableParallelism(),
    in_flight: inFlight,
    cold: await saturate(peer, programs.cold, {}, inFlight, 2),
    typical: await saturate(peer, programs.typical, typicalOptions, inFlight, value, logs),
  };
}

const workloads = {
  cold: measureCold,
  typical: measureTypical,
  calls: measureCalls,
  cpu: measureCpu,
  concurrent: measureConcurrent,
  abort: measureAbort,
  throughput: measureThroughput,
};

/**
 * Measures `peer` on the workloads named on the command line (all of them
 * when none is), each sized by `sizes[workload]` (a workload without sizes
 * is skipped: not meaningful for this peer), and prints the harness's one
 * JSON object: `{ "<name>": { version, <workload>: {…} } }`.
 */
export async function runHarness(name, version, peer, sizes) {
  const asked = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
  for (const arg of asked) {
    if (!(arg in workloads)) throw new Error(`unknown workload ${arg} (known: ${Object.keys(workloads)})`);
  }
  const report = { version };
  for (const [workload, measure] of Object.entries(workloads)) {
    if (!(workload in sizes) || (asked.length > 0 && !asked.includes(workload))) continue;
    progress(`${name}: ${workload}`);
    report[workload] = await measure(peer, sizes[workload]);
  }
  process.stdout.write(JSON.stringify({ [name]: report }) + "\n");
}
