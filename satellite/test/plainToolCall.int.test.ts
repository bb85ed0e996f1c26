import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SatelliteApp } from '../src/app.ts';
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

/** A 2025 session opened over plain HTTP, as a client without capabilities opens it. */
async function openSession(): Promise<string> {
  let sessionId = '';
  await new Promise<void>((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        sessionId = String(res.headers['mcp-session-id'] ?? '');
        res.resume();
        res.on('end', resolve);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo },
      }),
    );
  });
  expect(sessionId).not.toBe('');
  await send(sessionHeaders(sessionId), { jsonrpc: '2.0', method: 'notifications/initialized' });
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
  const data = type?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('')
    : text;
  const message = JSON.parse(data.replace(/\\"search_time_ms\\":[0-9.e-]+/g, '\\"search_time_ms\\":0'));
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
  const parsed = (reply: { type: string | undefined; text: string }) => {
    const data = reply.type?.startsWith('text/event-stream')
      ? reply.text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('')
      : reply.text;
    return JSON.parse(data) as unknown;
  };
  const viaSdk = (captured: Captured, modern: boolean): Captured['body'] => {
    const params = captured.body.params;
    if (!modern) return { ...captured.body, params: { ...params, _meta: {} } };
    const meta = params._meta as Record<string, unknown>;
    const info = meta['io.modelcontextprotocol/clientInfo'] as Record<string, unknown>;
    return {
      ...captured.body,
      params: {
        ...params,
        _meta: { ...meta, 'io.modelcontextprotocol/clientInfo': { ...info, websiteUrl: 'https://example.com' } },
      },
    };
  };

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
      const long = await send(captured.headers, viaSdk(captured, modern));
      expect({ ...short, text: undefined, body: parsed(short) }).toEqual({
        ...long,
        text: undefined,
        body: parsed(long),
      });
      expect(short.status).toBe(200);
      expect(JSON.stringify(parsed(short))).toContain('from a real client');
    } finally {
      for (const done of close) await done();
    }
  });
});
