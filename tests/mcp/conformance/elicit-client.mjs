// A client written with the official MCP TypeScript SDK (pinned in
// tools/mcp-conformance), for the test that an upstream's elicitation in
// the middle of a `run_code` program reaches the client and the client's
// answer reaches the upstream.
//
//   node elicit-client.mjs <coderun> <args of coderun...>
//
// It starts `<coderun> <args>` over stdio, declares form elicitation,
// answers every elicitation request by accepting with
// {username: "ts-sdk", email: "ts@example.com"}, runs a program that calls
// the fixture server's `test_elicitation` tool, and prints one JSON line:
// {"asked": [<the messages it was asked>], "result": <run_code's result>}.

import { createRequire } from 'node:module';

const require = createRequire(new URL('../../../tools/mcp-conformance/package.json', import.meta.url));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { ElicitRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const [command, ...args] = process.argv.slice(2);
const client = new Client(
  { name: 'coderun-elicit-test', version: '1.0.0' },
  { capabilities: { elicitation: { form: {} } } },
);
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params.message);
  return { action: 'accept', content: { username: 'ts-sdk', email: 'ts@example.com' } };
});
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
const result = await client.callTool({
  name: 'run_code',
  arguments: {
    code: "const answer = await tools.test_elicitation({ message: 'Who is asking?' });\n" +
      'return answer;',
  },
});
process.stdout.write(JSON.stringify({ asked, result }) + '\n');
await client.close();
