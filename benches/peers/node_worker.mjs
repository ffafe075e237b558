// Peer: a Node worker_threads runtime, the substrate of coderun's original
// design. A fresh Worker per run; the program is the body of an
// AsyncFunction (node_worker_guest.cjs); bindings cross by postMessage; an
// abort terminates the worker, and the run's result is the worker's exit.

import { availableParallelism, freemem } from "node:os";
import { Worker } from "node:worker_threads";
import { performance } from "node:perf_hooks";
import * as bench from "./common.mjs";

const guest = new URL("./node_worker_guest.cjs", import.meta.url);

const peer = {
  run(program, { bindings = {}, abortAfterMs } = {}) {
    return new Promise((resolve) => {
      const names = Object.fromEntries(
        Object.entries(bindings).map(([global, fns]) => [global, Object.keys(fns)]),
      );
      const worker = new Worker(guest, {
        workerData: { program, bindings: names, announceStart: abortAfterMs !== undefined },
      });
      let settled = false;
      let abortRequestedAt;
      const settle = (result) => {
        if (settled) return;
        settled = true;
        // The result is the caller's now; the worker's teardown is not waited for.
        worker.terminate();
        resolve(result);
      };
      worker.on("message", (message) => {
        if (message.type === "call") {
          const { id, global, name, args } = message;
          Promise.resolve()
            .then(() => bindings[global][name](args))
            .then(
              (value) => worker.postMessage({ id, ok: true, value }),
              (error) => worker.postMessage({ id, ok: false, value: String(error) }),
            );
        } else if (message.type === "started") {
          setTimeout(() => {
            abortRequestedAt = performance.now();
            worker.terminate();
          }, abortAfterMs);
        } else if (message.type === "done") {
          settle("error" in message ? { error: message.error } : { value: message.value, logs: message.logs });
        }
      });
      worker.on("error", (error) => settle({ error: `worker-exit: ${error}` }));
      worker.on("exit", () => settle({ error: "abort: the worker was terminated", abortRequestedAt }));
    });
  },
};

// Each worker is a V8 isolate of several MiB: W4 is cut down rather than
// exhaust the machine's memory, and the report says how many runs it made.
const MIB = 1024 * 1024;
const concurrentRuns = Math.min(1000, Math.floor(freemem() / (16 * MIB)));

await bench.runHarness("node worker", `node ${process.version}`, peer, {
  cold: { runs: 100, warmup: 5 },
  typical: { runs: 100, warmup: 5 },
  calls: { reps: 10 },
  cpu: { reps: 5 },
  concurrent: { runs: concurrentRuns },
  abort: { reps: 10 },
  throughput: { inFlight: 2 * availableParallelism() },
});
