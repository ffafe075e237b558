// A client written with the official MCP TypeScript SDK v2 client package
// (`@modelcontextprotocol/client`, pinned in tools/mcp-conformance), for the
// test that an upstream's elicitation in the middle of a `run_code` program
// reaches the client and the client's answer reaches the upstream on
// protocol 2026-07-28, where the server has no requests to send the client:
// coderun answers `tools/call` with an `input_required` result and the client
// retries the call with its `inputResponses` and the `requestState`.
//
//   node elicit-client-v2.mjs <coderun> <args of coderun...>
//
// It starts `<coderun> <args>` over stdio and connects pinned to protocol
// 2026-07-28 (`server/discover`, no `initialize`; the SDK probes on a
// short-lived second `<coderun> <args>` process and then talks to the one it
// keeps), declares form elicitation, answers every elicitation request by
// accepting with {username: "ts-v2", email: "v2@example.com"} (the SDK
// hands each request of an `input_required` result to the `elicitation/create`
// handler and retries the call itself), runs a program that calls the
// fixture server's `test_elicitation` tool, and prints one JSON line:
// {"asked": [<the messages it was asked>], "protocol": <the negotiated
// protocol version>, "result": <run_code's result>}.

import { createRequire } from 'node:module';

const require = createRequire(new URL('../../../tools/mcp-conformance/package.json', import.meta.url));
const { Client } = require('@modelcontextprotocol/client');
const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');

const [command, ...args] = process.argv.slice(2);
const client = new Client(
  { name: 'coderun-elicit-test-v2', version: '1.0.0' },
  {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    inputRequired: { autoFulfill: true },
  },
);
const asked = [];
client.setRequestHandler('elicitation/create', async (request) => {
  asked.push(request.params.message);
  return { action: 'accept', content: { username: 'ts-v2', email: 'v2@example.com' } };
});
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
const result = await client.callTool({
  name: 'run_code',
  arguments: {
    code: "const answer = await tools.test_elicitation({ message: 'Who is asking?' });\n" +
      'return answer;',
  },
});
process.stdout.write(
  JSON.stringify({ asked, protocol: client.getNegotiatedProtocolVersion(), result }) + '\n',
);
await client.close();
