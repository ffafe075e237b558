// The worker side of the Node worker-thread runtime (node_worker.mjs): the
// program runs as the body of an AsyncFunction whose parameters are the
// binding globals; each binding call is a `call` message to the parent,
// answered by a message with the same id. CommonJS, because a worker starts
// a CommonJS entry faster than an ES module one.

const { parentPort, workerData } = require("node:worker_threads");

const pending = new Map();
let nextId = 0;
parentPort.on("message", ({ id, ok, value }) => {
  const call = pending.get(id);
  pending.delete(id);
  if (ok) call.resolve(value);
  else call.reject(new Error(value));
});

const globals = [];
const namespaces = [];
for (const [global, names] of Object.entries(workerData.bindings)) {
  const namespace = Object.create(null);
  for (const name of names) {
    namespace[name] = (args) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        parentPort.postMessage({ type: "call", id, global, name, args });
      });
  }
  globals.push(global);
  namespaces.push(namespace);
}

// The program's console collects its lines, as the other peers' do.
const logs = [];
globals.push("console");
namespaces.push({ log: (...args) => logs.push(args.map(String).join(" ")) });

const AsyncFunction = (async () => {}).constructor;
if (workerData.announceStart) parentPort.postMessage({ type: "started" });
new AsyncFunction(...globals, workerData.program)(...namespaces).then(
  (value) => parentPort.postMessage({ type: "done", value, logs }),
  (error) => parentPort.postMessage({ type: "done", error: String(error?.stack ?? error) }),
);
