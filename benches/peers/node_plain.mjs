// Peer: plain Node, the JIT ceiling for the CPU workloads (W3). The program
// runs in this process as the body of an AsyncFunction: no isolation, so
// only W3 is meaningful. The median of several runs in one process lets the
// JIT warm up, as it would in a long-lived host.

import * as bench from "./common.mjs";

const AsyncFunction = (async () => {}).constructor;

const peer = {
  async run(program, { bindings = {} } = {}) {
    try {
      const value = await new AsyncFunction(...Object.keys(bindings), program)(...Object.values(bindings));
      return { value };
    } catch (error) {
      return { error: String(error) };
    }
  },
};

await bench.runHarness("node", `node ${process.version}`, peer, { cpu: { reps: 5 } });
