// A small MCP server over stdio (one JSON-RPC message per line) whose tools
// misbehave on purpose, for the failure tests of `coderun mcp`:
//
//   echo   answers with its `text` argument;
//
// Every tools/call that carries a W3C `traceparent` in `_meta` records
// `traceparent <value>` to FIXTURE_EVENTS.
//   count  records `counted <id>` to the file named by FIXTURE_EVENTS (so
//          that a test counts the calls every copy of the server ran) and
//          answers `counted <id>`;
//   steps  sends three progress notifications for the call's progress
//          token (when it has one), then answers `stepped`;
//   fail   answers with an error result (`isError`);
//   crash  makes the server exit in the middle of the call;
//   wait   never answers; when the call is cancelled
//          (`notifications/cancelled`), writes `cancelled <request id>` to
//          the file named by FIXTURE_EVENTS (and `started <id>` when it
//          starts, so a test knows the call is in flight).
//
// With FIXTURE_EXIT_AT_START set, it exits with status 3 before reading
// anything, like a server that cannot start.
//
// With FIXTURE_LISTS set, it also declares (empty) resources and prompts
// whose lists may change, and a tool `change_lists` that sends
// `notifications/resources/list_changed`, `notifications/prompts/list_changed`
// and `notifications/tools/list_changed` before it answers `changed`.
//
// With FIXTURE_STUBBORN set, it is a server that does not want to stop, in
// a process tree like `npx`'s: it ignores SIGTERM and the end of stdin, and
// starts a grandchild process that ignores SIGTERM too. It writes
// `pid <its pid>` and `grandchild <pid>` to FIXTURE_EVENTS at start, and
// `grandchild ready` once the grandchild ignores SIGTERM.

import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

if (process.env.FIXTURE_EXIT_AT_START) {
  process.stderr.write('fixture: refusing to start (FIXTURE_EXIT_AT_START)\n');
  process.exit(3);
}

const events = process.env.FIXTURE_EVENTS;
const record = (line) => {
  if (events) appendFileSync(events, line + '\n');
};

const stubborn = Boolean(process.env.FIXTURE_STUBBORN);
if (stubborn) {
  process.on('SIGTERM', () => record('ignored SIGTERM'));
  setInterval(() => {}, 1000);
  // The grandchild says when it ignores SIGTERM, so that a test can wait
  // for it before stopping anything.
  const grandchild = spawn(
    process.execPath,
    [
      '-e',
      "process.on('SIGTERM', () => {});" +
        "require('node:fs').appendFileSync(process.env.FIXTURE_EVENTS, 'grandchild ready\\n');" +
        'setInterval(() => {}, 1000);',
    ],
    { stdio: 'ignore' },
  );
  record(`pid ${process.pid}`);
  record(`grandchild ${grandchild.pid}`);
}
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
const object = (properties, required = []) => ({ type: 'object', properties, required });

const lists = Boolean(process.env.FIXTURE_LISTS);
const tools = [
  { name: 'echo', description: 'Answer with the text.', inputSchema: object({ text: { type: 'string' } }, ['text']) },
  { name: 'steps', description: 'Report progress three times, then answer.', inputSchema: object({}) },
  { name: 'count', description: 'Record a call.', inputSchema: object({ id: { type: 'string' } }, ['id']) },
  { name: 'fail', description: 'Answer with an error result.', inputSchema: object({}) },
  { name: 'crash', description: 'Exit in the middle of the call.', inputSchema: object({}) },
  { name: 'wait', description: 'Never answer.', inputSchema: object({}) },
];

if (lists) {
  tools.push({ name: 'change_lists', description: 'Say that the lists changed.', inputSchema: object({}) });
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  const { id, method, params } = message;
  if (method === 'initialize') {
    send({
      id,
      result: {
        protocolVersion: params.protocolVersion,
        capabilities: lists
          ? { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } }
          : { tools: {} },
        serverInfo: { name: 'fixture', version: '1.0.0' },
      },
    });
  } else if (method === 'tools/list') {
    send({ id, result: { tools } });
  } else if (lists && method === 'resources/list') {
    send({ id, result: { resources: [] } });
  } else if (lists && method === 'resources/templates/list') {
    send({ id, result: { resourceTemplates: [] } });
  } else if (lists && method === 'prompts/list') {
    send({ id, result: { prompts: [] } });
  } else if (method === 'tools/call') {
    const name = params.name;
    if (params._meta?.traceparent) record(`traceparent ${params._meta.traceparent}`);
    if (name === 'echo') {
      send({ id, result: { content: [{ type: 'text', text: String(params.arguments?.text) }] } });
    } else if (name === 'steps') {
      const progressToken = params._meta?.progressToken;
      if (progressToken !== undefined) {
        for (let progress = 1; progress <= 3; progress++) {
          send({ method: 'notifications/progress', params: { progressToken, progress, total: 3, message: `step ${progress}` } });
        }
      }
      send({ id, result: { content: [{ type: 'text', text: 'stepped' }] } });
    } else if (name === 'count') {
      record(`counted ${params.arguments?.id}`);
      send({ id, result: { content: [{ type: 'text', text: `counted ${params.arguments?.id}` }] } });
    } else if (name === 'change_lists') {
      for (const list of ['resources', 'prompts', 'tools']) {
        send({ method: `notifications/${list}/list_changed` });
      }
      send({ id, result: { content: [{ type: 'text', text: 'changed' }] } });
    } else if (name === 'fail') {
      send({ id, result: { content: [{ type: 'text', text: 'the fixture failed on purpose' }], isError: true } });
    } else if (name === 'crash') {
      process.stderr.write('fixture: crashing on purpose\n');
      process.exit(1);
    } else if (name === 'wait') {
      record(`started ${id}`);
    } else {
      send({ id, error: { code: -32602, message: `unknown tool ${name}` } });
    }
  } else if (method === 'notifications/cancelled') {
    record(`cancelled ${params.requestId}`);
  } else if (method === 'ping') {
    send({ id, result: {} });
  } else if (id !== undefined) {
    send({ id, error: { code: -32601, message: `method not found: ${method}` } });
  }
});
lines.on('close', () => {
  if (!stubborn) process.exit(0);
});
