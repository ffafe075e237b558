// Peer: quickjs-emscripten (QuickJS compiled to wasm by emscripten, run by
// Node's V8). A fresh runtime and context per run; the program is the body
// of an async function; a binding returns a QuickJS promise that the host
// settles, after which it runs the pending jobs. The interpreter runs on
// this thread, so an abort is a deadline its interrupt handler checks (where
// a flag set from another thread would be checked too).

import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { getQuickJS } from "quickjs-emscripten";
import * as bench from "./common.mjs";

const QuickJS = await getQuickJS();
const { version } = JSON.parse(
  readFileSync(new URL("./node_modules/quickjs-emscripten/package.json", import.meta.url), "utf8"),
);

/** A host value as a new handle in `vm` (values cross as JSON). */
function toHandle(vm, value) {
  if (typeof value === "number") return vm.newNumber(value);
  if (typeof value === "string") return vm.newString(value);
  if (value === undefined) return vm.undefined;
  return vm.unwrapResult(vm.evalCode(`(${JSON.stringify(value)})`));
}

const peer = {
  async run(program, { bindings = {}, abortAfterMs } = {}) {
    const runtime = QuickJS.newRuntime();
    const vm = runtime.newContext();
    const logs = [];
    try {
      // QuickJS itself has no console; this one collects the lines.
      vm.newObject().consume((console) => {
        vm.newFunction("log", (...args) => {
          logs.push(args.map((arg) => String(vm.dump(arg))).join(" "));
        }).consume((log) => vm.setProp(console, "log", log));
        vm.setProp(vm.global, "console", console);
      });
      for (const [global, fns] of Object.entries(bindings)) {
        const namespace = vm.newObject();
        for (const [name, fn] of Object.entries(fns)) {
          vm.newFunction(name, (argHandle) => {
            const args = vm.dump(argHandle);
            const deferred = vm.newPromise();
            Promise.resolve()
              .then(() => fn(args))
              .then(
                (value) => {
                  const handle = toHandle(vm, value);
                  deferred.resolve(handle);
                  handle.dispose();
                },
                (error) => vm.newError(String(error)).consume((e) => deferred.reject(e)),
              );
            deferred.settled.then(() => runtime.executePendingJobs());
            return deferred.handle;
          }).consume((handle) => vm.setProp(namespace, name, handle));
        }
        vm.setProp(vm.global, global, namespace);
        namespace.dispose();
      }
      let abortRequestedAt;
      if (abortAfterMs !== undefined) {
        abortRequestedAt = performance.now() + abortAfterMs;
        runtime.setInterruptHandler(() => performance.now() >= abortRequestedAt);
      }
      const evaluated = vm.evalCode(`(async () => {\n${program}\n})()`);
      if (evaluated.error) {
        return { error: String(evaluated.error.consume(vm.dump)?.message), abortRequestedAt };
      }
      const settledPromise = vm.resolvePromise(evaluated.value);
      evaluated.value.dispose();
      runtime.executePendingJobs();
      const settled = await settledPromise;
      if (settled.error) return { error: String(settled.error.consume(vm.dump)?.message), abortRequestedAt };
      return { value: settled.value.consume(vm.dump), logs };
    } finally {
      vm.dispose();
      runtime.dispose();
    }
  },
};

await bench.runHarness("quickjs-emscripten", `quickjs-emscripten ${version}`, peer, {
  cold: { runs: 1000, warmup: 50 },
  typical: { runs: 300, warmup: 20 },
  calls: { reps: 10 },
  cpu: { reps: 5 },
  concurrent: { runs: 1000 },
  abort: { reps: 10 },
  // One thread: run.py starts one process per core.
  throughput: { inFlight: 1 },
});
