import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SatelliteApp } from '../src/app.ts';
import { isPlainObject } from '../src/gateway/jsonRpcShape.ts';
import { readPlainLegacyToolCall, readPlainModernToolCall } from '../src/sdkAdaptation/plainToolCall.ts';
import { everythingServer, fixtureModernServer, referenceServer } from './helpers.ts';
import { startTestSatellite } from './startTestSatellite.ts';

/**
 * The plain tool call of either generation is answered without the SDK's serving machinery. Each
 * request here goes to a real satellite twice: as the v2 client sends it (the short path) and with
 * one member more that means nothing to the call but takes it through the SDK (a website in a
 * 2026-07-28 client's identity, an empty `_meta` from a 2025 session). The two answers must be the
 * same once parsed, for every kind of result.
 */

let satellite: SatelliteApp;
let url: URL;

beforeAll(async () => {
  const started = await startTestSatellite({
    servers: [
      referenceServer('everything', [everythingServer, 'stdio']),
      referenceServer('modern', [fixtureModernServer]),
    ],
  });
  satellite = started.satellite;
  url = started.url;
}, 60000);

afterAll(async () => {
  await satellite.close();
});

const clientInfo = { name: 'agent', version: '1.0.0' };

/**
 * One POST on a connection of its own (no pool outliving the test keeps the satellite from closing),
 * resolving with the status, content type and body; `signal` lets the client go away mid-call.
 */
function send(headers: Record<string, string>, body: unknown, signal?: AbortSignal) {
  return new Promise<{ status: number; type: string | undefined; text: string }>((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', agent: false, headers, ...(signal ? { signal } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], text }));
      res.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(body));
  });
}

const standardHeaders = (tool: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': tool,
});

async function post(tool: string, args: unknown, id: string | number, viaSdk: boolean) {
  const { status, type, text } = await send(standardHeaders(tool), {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: tool,
      ...(args === undefined ? {} : { arguments: args }),
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': viaSdk
          ? { ...clientInfo, websiteUrl: 'https://example.com' }
          : clientInfo,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  // A search's own timing differs between any two searches.
  const body = JSON.parse(text.replace(/\\"search_time_ms\\":[0-9.e-]+/g, '\\"search_time_ms\\":0'));
  return { status, type, body };
}

const cases: [string, string, unknown][] = [
  ['a text result', 'execute_mcp_tool', { tool_path: 'everything:echo', arguments: { message: 'hi' } }],
  ['an image', 'execute_mcp_tool', { tool_path: 'everything:get-tiny-image', arguments: {} }],
  [
    'structured content',
    'execute_mcp_tool',
    { tool_path: 'everything:get-structured-content', arguments: { location: 'New York' } },
  ],
  [
    'annotations',
    'execute_mcp_tool',
    { tool_path: 'everything:get-annotated-message', arguments: { messageType: 'error', includeImage: true } },
  ],
  ['resource links', 'execute_mcp_tool', { tool_path: 'everything:get-resource-links', arguments: { count: 2 } }],
  [
    'an embedded resource',
    'execute_mcp_tool',
    { tool_path: 'everything:get-resource-reference', arguments: { resourceType: 'Text', resourceId: 1 } },
  ],
  ['a 2026-07-28 server with _meta of its own', 'execute_mcp_tool', { tool_path: 'modern:structured', arguments: {} }],
  ['arguments the tool refuses', 'execute_mcp_tool', { tool_path: 'everything:get-sum', arguments: { a: 'one' } }],
  ['a missing field', 'execute_mcp_tool', { tool_path: 'everything:echo' }],
  ['no arguments at all', 'execute_mcp_tool', undefined],
  ['an unknown tool', 'execute_mcp_tool', { tool_path: 'everything:nothing-here', arguments: {} }],
  ['a search', 'discover_mcp_tools', { query: 'add two numbers', limit: 3 }],
  ['a search without schemas', 'discover_mcp_tools', { query: '^get', include_schemas: false }],
  ['a search with a bad limit', 'discover_mcp_tools', { query: 'x', limit: 'ten' }],
  ['a search with no query', 'discover_mcp_tools', {}],
];

/** Waits until the modern fixture has counted one more slow task stopped by cancellation. */
async function untilCancelled(before: number) {
  for (let i = 0; i < 100; i++) {
    const now = await post('execute_mcp_tool', { tool_path: 'modern:cancelled_count', arguments: {} }, 3, false);
    if (Number(now.body.result.content[0].text) === before + 1) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the upstream call was not cancelled');
}

const cancelledSoFar = async () =>
  Number(
    (await post('execute_mcp_tool', { tool_path: 'modern:cancelled_count', arguments: {} }, 1, false)).body.result
      .content[0].text,
  );

describe('the plain 2026-07-28 tool call', () => {
  it.each(cases)('answers %s exactly as the SDK does', async (_, tool, args) => {
    const short = await post(tool, args, 41, false);
    const long = await post(tool, args, 41, true);
    expect(short).toEqual(long);
    expect(short.status).toBe(200);
    expect(short.type).toBe('application/json');
    // The satellite names itself unless the server's own result already names a server.
    expect(short.body.result._meta['io.modelcontextprotocol/serverInfo'].name).toMatch(
      /^(service-satellite|fixture-modern)$/,
    );
    expect(short.body.result.resultType).toBe('complete');
  });

  it('passes on structured content that is not an object, which 2026-07-28 allows', async () => {
    const args = { tool_path: 'modern:structured_list', arguments: {} };
    const short = await post('execute_mcp_tool', args, 5, false);
    expect(short).toEqual(await post('execute_mcp_tool', args, 5, true));
    expect(short.body.result.structuredContent).toEqual([1, 2]);
  });

  it('never serves a request with two Content-Type fields (Node refuses it; the SDK would too)', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'execute_mcp_tool',
        arguments: { tool_path: 'everything:echo', arguments: { message: 'x' } },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const { 'content-type': _, ...rest } = standardHeaders('execute_mcp_tool');
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = request(
        url,
        {
          method: 'POST',
          agent: false,
          headers: [
            ...Object.entries(rest).flat(),
            'content-type',
            'application/json',
            'content-type',
            'text/plain',
          ] as unknown as Record<string, string>,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    expect(status).toBeGreaterThanOrEqual(400);
  });

  it('keeps a string id as the client sent it', async () => {
    const short = await post(
      'execute_mcp_tool',
      { tool_path: 'everything:echo', arguments: { message: 'x' } },
      'r-1',
      false,
    );
    expect(short).toEqual(
      await post('execute_mcp_tool', { tool_path: 'everything:echo', arguments: { message: 'x' } }, 'r-1', true),
    );
    expect(short.body.id).toBe('r-1');
  });

  it('cancels the upstream call when the client goes away', async () => {
    const before = await cancelledSoFar();
    const controller = new AbortController();
    const call = send(
      standardHeaders('execute_mcp_tool'),
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'execute_mcp_tool',
          arguments: { tool_path: 'modern:slow_task', arguments: { steps: 100, delay_ms: 50 } },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      controller.signal,
    ).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    await call;
    await untilCancelled(before);
  });
});

const sessionHeaders = (sessionId: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  'mcp-session-id': sessionId,
});

/**
 * A 2025 session opened over plain HTTP: as a client without capabilities opens it, or with the
 * headers and initialize a real client sent.
 */
async function openSession(
  initialize: Captured = {
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo },
    },
  },
): Promise<string> {
  let sessionId = '';
  let version = '';
  await new Promise<void>((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', agent: false, headers: initialize.headers }, (res) => {
      sessionId = String(res.headers['mcp-session-id'] ?? '');
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => {
        version = /"protocolVersion":"([^"]+)"/.exec(text)?.[1] ?? '';
        resolve();
      });
    });
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(initialize.body));
  });
  expect(sessionId).not.toBe('');
  expect(version).not.toBe('');
  await send(
    { ...sessionHeaders(sessionId), 'mcp-protocol-version': version },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  );
  return sessionId;
}

/** The JSON-RPC message of a POST's event stream (or its JSON body), with status and headers. */
async function postInSession(sessionId: string, tool: string, args: unknown, id: string | number, viaSdk: boolean) {
  const params = { name: tool, ...(args === undefined ? {} : { arguments: args }), ...(viaSdk ? { _meta: {} } : {}) };
  const { status, type, text } = await send(sessionHeaders(sessionId), {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params,
  });
  const message = messageOf({ type, text });
  return { status, type, message };
}

/** The modern fixture's slow task, on the short path of a session: `steps` x 50 ms, stoppable. */
const slowCallInSession = (sessionId: string, id: string | number, steps = 100) =>
  postInSession(
    sessionId,
    'execute_mcp_tool',
    { tool_path: 'modern:slow_task', arguments: { steps, delay_ms: 50 } },
    id,
    false,
  );

/** A session's `notifications/cancelled` for request `requestId`, with the headers given. */
const cancelInSession = (headers: Record<string, string>, requestId: string, reason?: string) =>
  send(headers, {
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId, ...(reason ? { reason } : {}) },
  });

describe('the plain tool call of a 2025 session', () => {
  let sessionId: string;
  beforeAll(async () => {
    sessionId = await openSession();
  });

  it.each(cases)('answers %s exactly as the SDK does', async (_, tool, args) => {
    const short = await postInSession(sessionId, tool, args, 51, false);
    const long = await postInSession(sessionId, tool, args, 51, true);
    expect(short).toEqual(long);
    expect(short.status).toBe(200);
    expect(short.type).toBe('text/event-stream');
    expect(short.message.result.content).toBeInstanceOf(Array);
    expect(short.message.result.resultType).toBeUndefined();
  });

  it('answers an unknown session as the SDK does: 404, so the client initialises again', async () => {
    const args = { tool_path: 'everything:echo', arguments: { message: 'x' } };
    const short = await postInSession('no-such-session', 'execute_mcp_tool', args, 1, false);
    expect(short).toEqual(await postInSession('no-such-session', 'execute_mcp_tool', args, 1, true));
    expect(short.status).toBe(404);
    expect(short.message.error.code).toBe(-32001);
  });

  it("stops the upstream call on the client's notifications/cancelled", async () => {
    const before = await cancelledSoFar();
    const call = slowCallInSession(sessionId, 'slow-1');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancel = await cancelInSession(sessionHeaders(sessionId), 'slow-1', 'the user changed their mind');
    expect(cancel.status).toBe(202);
    await untilCancelled(before);
    // The call's stream still ends, with the server's own answer to the stop.
    expect((await call).message.result.isError).toBe(true);
  });

  it('refuses structured content that is not an object, as a 2025 session does', async () => {
    const args = { tool_path: 'modern:structured_list', arguments: {} };
    const short = await postInSession(sessionId, 'execute_mcp_tool', args, 61, false);
    const long = await postInSession(sessionId, 'execute_mcp_tool', args, 61, true);
    expect(short.message.error.code).toBe(-32602);
    expect(short.message.error.code).toBe(long.message.error.code);
    expect(short.message.error.message).toMatch(/^Invalid tools\/call result: /);
    expect(long.message.error.message).toMatch(/^Invalid tools\/call result: /);
  });

  it('stops every call of a request id the client reused, on its cancellation', async () => {
    const before = await cancelledSoFar();
    const calls = [1, 2].map(() => slowCallInSession(sessionId, 'twice'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await cancelInSession(sessionHeaders(sessionId), 'twice');
    await untilCancelled(before + 1);
    await Promise.all(calls);
  });

  it('ignores a cancellation the session refuses (here: no event stream accepted)', async () => {
    const before = await cancelledSoFar();
    const call = slowCallInSession(sessionId, 'not-cancelled', 8);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await cancelInSession(
      { ...sessionHeaders(sessionId), accept: 'application/json' },
      'not-cancelled',
    );
    expect(refused.status).toBe(406);
    expect((await call).message.result.content[0].text).toBe('done after 8 steps');
    expect(await cancelledSoFar()).toBe(before);
  });

  it('keeps nothing of a call once it is answered, whichever way it ended', async () => {
    const calls = Array.from({ length: 50 }, (_, i) =>
      postInSession(
        sessionId,
        'execute_mcp_tool',
        { tool_path: i % 2 ? 'everything:echo' : 'nowhere:x', arguments: { message: 'm' } },
        100 + i,
        false,
      ),
    );
    await Promise.all(calls);
    expect(satellite.sessions.touch(sessionId, null)?.plainCalls.size()).toBe(0);
  });

  it('stops the upstream call when the session ends (DELETE)', async () => {
    const own = await openSession();
    const before = await cancelledSoFar();
    const call = slowCallInSession(own, 9).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await new Promise<void>((resolve, reject) => {
      const { 'content-type': _, ...headers } = sessionHeaders(own);
      const outgoing = request(url, { method: 'DELETE', agent: false, headers }, (res) => {
        expect(res.statusCode).toBe(200);
        res.resume();
        res.on('end', resolve);
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
    await untilCancelled(before);
    await call;
  });
});

describe('a slow plain call of a 2025 session', () => {
  it('gets its stream head at once and keep-alive comments until its event, as on the SDK path', async () => {
    const started = await startTestSatellite({
      servers: [referenceServer('modern', [fixtureModernServer])],
      env: { MCP_SSE_KEEPALIVE_MS: '100' },
    });
    const saved = url;
    url = started.url;
    try {
      const own = await openSession();
      const slow = { tool_path: 'modern:slow_task', arguments: { steps: 5, delay_ms: 100 } };
      for (const viaSdk of [false, true]) {
        const params = { name: 'execute_mcp_tool', arguments: slow, ...(viaSdk ? { _meta: {} } : {}) };
        const { status, type, text } = await send(sessionHeaders(own), {
          jsonrpc: '2.0',
          id: viaSdk ? 2 : 1,
          method: 'tools/call',
          params,
        });
        expect(status).toBe(200);
        expect(type).toBe('text/event-stream');
        expect(text).toContain(': keepalive\n\n');
        expect(text).toMatch(/event: message\ndata: .*done after 5 steps/);
      }
    } finally {
      url = saved;
      await started.satellite.close();
    }
  });
});

/** A request as a real client sent it: its headers (lower-case names) and its body. */
type Captured = {
  headers: Record<string, string>;
  body: { params: Record<string, unknown> } & Record<string, unknown>;
};

/** A fetch that passes every request on and keeps each `tools/call` POST as it went out. */
function recordingFetch(calls: Captured[]): typeof fetch {
  return async (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Captured['body']) : undefined;
    if (init?.method === 'POST' && body?.method === 'tools/call') {
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => {
        headers[name] = value;
      });
      calls.push({ headers, body });
    }
    return fetch(input, init);
  };
}

/**
 * The comparison above, on the requests the clients people use really send: each client makes a call,
 * its request is sent again as it was (the short path must take it) and with one member more that takes
 * it through the SDK, and the two answers must be the same.
 */
describe('the plain tool call as real clients send it', () => {
  const args = { tool_path: 'everything:echo', arguments: { message: 'from a real client' } };
  it.each([
    ['the SDK v2 client pinned to 2026-07-28', 'v2-modern'],
    ['the SDK v2 client in its default mode', 'v2-legacy'],
    ['the SDK v1 client', 'v1'],
  ] as const)('%s', async (_, kind) => {
    const calls: Captured[] = [];
    const close: Array<() => Promise<void>> = [];
    if (kind === 'v1') {
      const client = new V1Client({ name: 'v1-agent', version: '1.0.0' });
      await client.connect(new V1Transport(url, { fetch: recordingFetch(calls) }));
      close.push(() => client.close());
      await client.callTool({ name: 'execute_mcp_tool', arguments: args });
    } else {
      const client = new Client(
        { name: 'v2-agent', version: '2.0.0' },
        kind === 'v2-modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
      );
      await client.connect(new StreamableHTTPClientTransport(url, { fetch: recordingFetch(calls) }));
      close.push(() => client.close());
      await client.callTool({ name: 'execute_mcp_tool', arguments: args });
    }
    try {
      const [captured] = calls;
      if (!captured) throw new Error('the client sent no tools/call');
      const modern = kind === 'v2-modern';
      const plain = modern
        ? readPlainModernToolCall(captured.headers, captured.body)
        : readPlainLegacyToolCall(captured.headers, captured.body);
      expect(plain, 'the short path takes the request as the client sent it').toBeDefined();
      const short = await send(captured.headers, captured.body);
      const long = await send(captured.headers, throughSdk(captured.body));
      expect({ ...short, text: undefined, body: messageOf(short) }).toEqual({
        ...long,
        text: undefined,
        body: messageOf(long),
      });
      expect(short.status).toBe(200);
      expect(JSON.stringify(messageOf(short))).toContain('from a real client');
    } finally {
      for (const done of close) await done();
    }
  });
});

/** The headers of a request worth sending again: what the client chose, not what the connection added. */
function replayableHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (['host', 'content-length', 'connection', 'transfer-encoding'].includes(name)) continue;
    if (typeof value === 'string') kept[name] = value;
  }
  return kept;
}

/**
 * A proxy in front of the satellite that keeps every JSON POST as it arrived (headers and body), for
 * a client that cannot be handed a fetch of ours: a separate program such as the Inspector's CLI.
 */
async function startRecordingProxy(target: URL) {
  const posts: Captured[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (incoming.method === 'POST' && raw.length > 0) {
        posts.push({ headers: replayableHeaders(incoming.headers), body: JSON.parse(raw.toString('utf8')) });
      }
      const forwarded = request(
        target,
        {
          method: incoming.method,
          agent: false,
          headers: { ...replayableHeaders(incoming.headers), host: target.host },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on('error', () => outgoing.destroy());
      forwarded.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The JSON-RPC message of an answer, from its JSON body or its event stream's data lines. */
function messageOf(reply: { type: string | undefined; text: string }) {
  const data = reply.type?.startsWith('text/event-stream')
    ? reply.text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('')
    : reply.text;
  return JSON.parse(data.replace(/\\"search_time_ms\\":[0-9.e-]+/g, '\\"search_time_ms\\":0'));
}

/** The request again, with one member that means nothing to the call but takes it through the SDK. */
function throughSdk(body: Captured['body']): Captured['body'] {
  const meta = body.params._meta;
  if (!isPlainObject(meta)) return { ...body, params: { ...body.params, _meta: {} } };
  const info = meta['io.modelcontextprotocol/clientInfo'];
  if (!isPlainObject(info))
    return { ...body, params: { ...body.params, _meta: { ...meta, 'com.example/trace': 'x' } } };
  return {
    ...body,
    params: {
      ...body.params,
      _meta: { ...meta, 'io.modelcontextprotocol/clientInfo': { ...info, websiteUrl: 'https://example.com' } },
    },
  };
}

/** Whether the short path takes a request (a 2025 one needs its session to have declared no capability). */
function takenByShortPath(captured: Captured, sessionAsksForInput: boolean): boolean {
  if (captured.headers['mcp-session-id'] === undefined) {
    return readPlainModernToolCall(captured.headers, captured.body) !== undefined;
  }
  return !sessionAsksForInput && readPlainLegacyToolCall(captured.headers, captured.body) !== undefined;
}

/**
 * Sends a captured tools/call as it was and through the SDK and expects one answer. A 2025 request
 * goes to a session opened here with the client's own initialize (the client's own session ended with
 * it), so the session declares what the client declared.
 */
async function compareBothPaths(captured: Captured, initialize: Captured | undefined) {
  let headers = captured.headers;
  let sessionAsksForInput = false;
  if (headers['mcp-session-id'] !== undefined) {
    if (!initialize) throw new Error('a 2025 request without the initialize that opened its session');
    headers = { ...headers, 'mcp-session-id': await openSession(initialize) };
    const capabilities = (initialize.body.params as { capabilities?: Record<string, unknown> }).capabilities ?? {};
    sessionAsksForInput = ['elicitation', 'sampling', 'roots'].some((c) => capabilities[c] !== undefined);
  }
  const asSent = { headers, body: captured.body };
  const short = await send(asSent.headers, asSent.body);
  const long = await send(asSent.headers, throughSdk(asSent.body));
  expect({ status: short.status, type: short.type, message: messageOf(short) }).toEqual({
    status: long.status,
    type: long.type,
    message: messageOf(long),
  });
  return { short: messageOf(short), plain: takenByShortPath(asSent, sessionAsksForInput), status: short.status };
}

/** The Inspector's command line (a separate program), run against `target` with a home of its own. */
function runInspector(target: URL, ...args: string[]) {
  const launcher = join(
    dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')),
    'clients/launcher/build/index.js',
  );
  const home = mkdtempSync(join(tmpdir(), 'inspector-home-'));
  return promisify(execFile)(process.execPath, [launcher, '--cli', target.href, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home },
    timeout: 60000,
  });
}

describe('the plain tool call as the MCP Inspector command line sends it', () => {
  // Inspector 2.12 declares `roots` (and extensions) in either era, and sends a log level in the
  // 2026-07-28 envelope: a server may ask such a client for its roots during the call, so none of its
  // calls is plain and each goes through the SDK. The comparison holds whichever path a shape takes.
  it.each([
    ['in its default (2025) era', []],
    ['in the 2026-07-28 era', ['--protocol-era', 'modern']],
    ['negotiating the era', ['--protocol-era', 'auto']],
    ['with tool metadata', ['--protocol-era', 'modern', '--tool-metadata', 'trace=abc']],
    ['with general metadata, in its default era', ['--metadata', 'trace=abc']],
  ] as const)(
    '%s',
    async (_, options) => {
      const proxy = await startRecordingProxy(url);
      try {
        for (const [tool, args] of [
          ['execute_mcp_tool', ['tool_path=everything:echo', 'arguments={"message":"from the inspector"}']],
          ['discover_mcp_tools', ['query=echo', 'limit=2']],
        ] as const) {
          await runInspector(
            proxy.url,
            ...options,
            '--method',
            'tools/call',
            '--tool-name',
            tool,
            '--tool-arg',
            ...args,
          );
        }
      } finally {
        await proxy.close();
      }
      const initialize = proxy.posts.find((p) => p.body.method === 'initialize');
      const calls = proxy.posts.filter((p) => p.body.method === 'tools/call');
      expect(calls).toHaveLength(2);
      for (const call of calls) {
        const compared = await compareBothPaths(call, initialize);
        expect(compared.status).toBe(200);
        expect(compared.plain, 'whether the short path takes the request').toBe(false);
        expect(JSON.stringify(compared.short)).toMatch(/from the inspector|everything:echo/);
      }
    },
    120000,
  );
});

/**
 * The request shapes of the MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12)
 * with a meta-tool in place of its test tools: its 2026-07-28 requests are built by one function
 * (standard headers, the envelope with its default capabilities sampling, elicitation and roots, or
 * with none in the per-request _meta scenarios, `_meta` of the scenario merged in), its 2025 ones by
 * the SDK client after an initialize declaring no capabilities.
 */
describe('the plain tool call as the conformance suite shapes its requests', () => {
  const echo = { tool_path: 'everything:echo', arguments: { message: 'conformance' } };
  const envelope = (capabilities: object, name = 'conformance-test-client') => ({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  });
  const suiteCapabilities = { sampling: {}, elicitation: {}, roots: { listChanged: true } };
  const modernCall = (params: Record<string, unknown>): Captured => ({
    headers: standardHeaders('execute_mcp_tool'),
    body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'execute_mcp_tool', ...params } },
  });
  const legacyInitialize: Captured = {
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'conformance', version: '1' } },
    },
  };
  const legacyCall = (params: Record<string, unknown>): Captured => ({
    headers: { ...sessionHeaders('to be opened') },
    body: { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'execute_mcp_tool', ...params } },
  });

  it.each([
    [
      '2026-07-28, its default capabilities',
      modernCall({ arguments: echo, _meta: envelope(suiteCapabilities) }),
      false,
    ],
    [
      '2026-07-28, the per-request _meta scenarios',
      modernCall({ arguments: echo, _meta: envelope({}, 'conformance-client') }),
      true,
    ],
    [
      '2026-07-28, with a progress token',
      modernCall({ arguments: echo, _meta: { ...envelope(suiteCapabilities), progressToken: 'progress-test-1' } }),
      false,
    ],
    [
      '2026-07-28, input responses without a request state',
      modernCall({
        arguments: echo,
        inputResponses: { wrong_key: { action: 'accept', content: {} } },
        _meta: envelope({}),
      }),
      false,
    ],
    ['2025, with arguments', legacyCall({ arguments: echo }), true],
    ['2025, without arguments', legacyCall({}), true],
    [
      '2025, with a progress token',
      legacyCall({ arguments: echo, _meta: { progressToken: 'progress-test-1' } }),
      false,
    ],
  ] as const)('%s', async (_, captured, plain) => {
    const compared = await compareBothPaths(captured, legacyInitialize);
    expect(compared.plain, 'whether the short path takes the request').toBe(plain);
    expect(compared.status).toBe(200);
  });
});
