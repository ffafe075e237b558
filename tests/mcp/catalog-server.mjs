// An MCP server over stdio (one JSON-RPC message per line) that lists the
// captured `tools/list` results of the published servers in
// code-mode/tests/data/mcp/catalog (their real names, descriptions and
// schemas), for testing `coderun mcp` at catalog scale next to real
// upstreams. Its tools are listed, not implemented: a call answers with an
// error result saying so.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '../../code-mode/tests/data/mcp/catalog');
const tools = [];
for (const file of readdirSync(dir).sort()) {
  if (!file.endsWith('.json') || file.startsWith('package')) continue;
  const server = file.slice(0, -'.json'.length).replaceAll('-', '_');
  for (const tool of JSON.parse(readFileSync(join(dir, file), 'utf8')).tools) {
    tools.push({ ...tool, name: `${server}__${tool.name}` });
  }
}

const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  switch (message.method) {
    case 'initialize':
      send({ id: message.id, result: {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'catalog', version: '1.0.0' },
      } });
      break;
    case 'tools/list':
      send({ id: message.id, result: { tools } });
      break;
    case 'tools/call':
      send({ id: message.id, result: {
        isError: true,
        content: [{ type: 'text', text: `${message.params.name} is a captured schema, not a working tool` }],
      } });
      break;
    default:
      send({ id: message.id, error: { code: -32601, message: `no method ${message.method}` } });
  }
});
