import { request as httpRequest } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { trickleRequest } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SatelliteApp } from '../src/app.ts';
import { connectClient, stdioServer, textOf } from './helpers.ts';
import { startTestSatellite } from './startTestSatellite.ts';

/**
 * `/mcp` against clients that mean harm or are merely slow, through a real socket: what they send is
 * refused with a JSON-RPC error before anything walks it, a client trickling its head or its body is cut
 * once its limit is up, and a tool call that takes longer than those limits still gets its answer.
 */
const headersTimeoutMs = 500;
const requestTimeoutMs = 1000;
const maxRequestBytes = 64 * 1024;
let satellite: SatelliteApp;
let url: URL;

beforeAll(async () => {
  ({ satellite, url } = await startTestSatellite({
    servers: [stdioServer('fixture')],
    env: {
      HTTP_HEADERS_TIMEOUT_MS: String(headersTimeoutMs),
      HTTP_REQUEST_TIMEOUT_MS: String(requestTimeoutMs),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(requestTimeoutMs),
      MCP_MAX_REQUEST_BYTES: String(maxRequestBytes),
    },
  }));
}, 60_000);

afterAll(async () => {
  await satellite?.close();
});

async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

/** The JSON-RPC error answering a request refused before its id was read. */
const refusal = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

const trickle = (first: string, drip: () => string) => trickleRequest(Number(url.port), first, drip);

describe('/mcp and hostile bodies', () => {
  it('refuses a body nested far deeper than any call needs with 400 (Invalid params where it is the arguments), and serves on', async () => {
    const depth = 10_000;
    const deepParams = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const deepArguments = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'execute_mcp_tool', arguments: { tool_path: 'a:b', arguments: { x: 1 } } },
    }).replace('{"x":1}', `${'{"x":'.repeat(depth)}1${'}'.repeat(depth)}`);
    for (const body of [deepParams, '['.repeat(depth) + ']'.repeat(depth)]) {
      expect(await post(body)).toEqual({
        status: 400,
        body: refusal(-32600, 'Invalid Request: the body nests deeper than 64 levels'),
      });
    }
    // 20,000 levels, as the probe that found the satellite reporting a stack overflow as the tool failing.
    const deeper = deepArguments.replace(
      `${'{"x":'.repeat(depth)}1${'}'.repeat(depth)}`,
      `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
    );
    for (const body of [deepArguments, deeper]) {
      expect(await post(body)).toEqual({
        status: 400,
        body: refusal(-32602, "Invalid params: the tool call's arguments nest deeper than 62 levels"),
      });
    }
    // Arguments right at the limit reach the tool (which reports what it makes of them).
    const atLimit = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        name: 'discover_mcp_tools',
        arguments: { query: 'x', queries: [] },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }).replace('"queries":[]', `"deep":${'['.repeat(61)}${']'.repeat(61)}`);
    const served = await post(atLimit, {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'discover_mcp_tools',
    });
    expect(served.status).toBe(200);
    const health = await fetch(new URL('/', url));
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });
});

/**
 * A POST through node:http on a connection of its own, the body written in 64 KiB pieces with
 * back-pressure (as Node clients send a large body), with a length or chunked; resolves with the
 * status and body, rejects on a socket error such as EPIPE.
 */
function postLarge(body: Buffer, chunked: boolean) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(chunked ? {} : { 'content-length': String(body.length) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
        res.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    let offset = 0;
    const writeMore = () => {
      while (offset < body.length) {
        const piece = body.subarray(offset, offset + 64 * 1024);
        offset += piece.length;
        if (!outgoing.write(piece)) {
          outgoing.once('drain', writeMore);
          return;
        }
      }
      outgoing.end();
    };
    writeMore();
  });
}

describe('/mcp and large bodies', () => {
  const tooLarge = refusal(-32000, `Request body too large: at most ${maxRequestBytes} bytes (MCP_MAX_REQUEST_BYTES)`);
  const body = Buffer.from(
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(8 * 1024 * 1024) } }),
  );

  it.each([
    ['with its length', false],
    ['chunked', true],
  ])('answers a body over MCP_MAX_REQUEST_BYTES sent %s with 413, which the client reads', async (_, chunked) => {
    for (let i = 0; i < 3; i++) {
      expect(await postLarge(body, chunked)).toEqual({ status: 413, body: tooLarge });
    }
  });

  it('answers fetch the same, and serves a body within the limit', async () => {
    expect(await post(body.toString())).toEqual({ status: 413, body: tooLarge });
    const within = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(maxRequestBytes - 200) },
    });
    expect((await post(within)).status).not.toBe(413);
  });
});

describe('an over-limit tool call from real clients', () => {
  // The body the SDK client sends for these arguments is over MCP_MAX_REQUEST_BYTES (64 KiB here).
  const oversized = { tool_path: 'fixture:echo', arguments: { text: 'x'.repeat(2 * 1024 * 1024) } };

  it.each([
    ['2026-07-28', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
    ['2025-11-25', {}],
  ] as const)('reaches the SDK v2 client of %s as the 413, and the client goes on', async (_, options) => {
    const client = new Client({ name: 'large', version: '1.0.0' }, options);
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      for (let i = 0; i < 3; i++) {
        type HttpError = Error & { data?: { status?: number } };
        const refused = await client.callTool({ name: 'execute_mcp_tool', arguments: oversized }).then(
          (): HttpError => new Error('served'),
          (error: unknown) => error as HttpError,
        );
        // The SDK's HTTP error carries the status; a broken pipe would carry none and another message.
        expect(refused.data?.status).toBe(413);
        expect(refused.message).toContain('Request body too large');
        expect(refused.message).not.toMatch(/EPIPE|ECONNRESET|fetch failed|socket/i);
      }
      const served = await client.callTool({
        name: 'execute_mcp_tool',
        arguments: { tool_path: 'fixture:echo', arguments: { text: 'still here' } },
      });
      expect(textOf(served)).toBe('still here');
    } finally {
      await client.close();
    }
  });
});

describe('/mcp and Accept', () => {
  const modernCall = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'discover_mcp_tools',
      arguments: { query: 'echo' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const modernHeaders = {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'discover_mcp_tools',
  };
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'agent', version: '1.0.0' } },
  });
  const notAcceptable = {
    status: 406,
    body: refusal(-32000, 'Not Acceptable: Client must accept both application/json and text/event-stream'),
  };

  it.each([
    ['only JSON', 'application/json'],
    ['only an event stream', 'text/event-stream'],
    ['anything', '*/*'],
  ])('refuses a 2026-07-28 call and a 2025 initialize accepting %s with 406', async (_, accept) => {
    expect(await post(modernCall, { ...modernHeaders, accept })).toEqual(notAcceptable);
    expect(await post(initialize, { accept })).toEqual(notAcceptable);
  });

  it('serves the same 2026-07-28 call accepting both', async () => {
    const answer = await post(modernCall, modernHeaders);
    expect(answer.status).toBe(200);
  });
});

describe('/mcp and slow clients', () => {
  it('cuts a client trickling its head once the head limit is up', async () => {
    let header = 0;
    const drips = await trickle(`POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\n`, () => `X-Slow-${header++}: a\r\n`);
    expect(drips).toBeGreaterThan(2);
  });

  it('cuts a client trickling its body once the request limit is up', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(500) } });
    let sent = 0;
    const drips = await trickle(
      `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n`,
      () => body[sent++ % body.length] as string,
    );
    expect(drips).toBeGreaterThan(requestTimeoutMs / 100 - 2);
    expect(sent).toBeLessThan(body.length);
  });

  it('answers a tool call that runs well past the request limit', async () => {
    const client = await connectClient(url, 'slow-call');
    try {
      const result = await client.callTool({
        name: 'execute_mcp_tool',
        arguments: { tool_path: 'fixture:slow_task', arguments: { steps: 3, delay_ms: requestTimeoutMs } },
      });
      expect(textOf(result)).toBe('done after 3 steps');
    } finally {
      await client.close();
    }
  });
});

describe('/mcp and a client inventing a new clientInfo on every request', () => {
  it('follows at most its identity’s share of 2026-07-28 clients and shows how many it did not follow', async () => {
    // A satellite of its own, whose sweep does not run during the test: the count is per sweep interval.
    const own = await startTestSatellite({ servers: [], env: { SESSION_SWEEP_INTERVAL_MS: '3600000' } });
    try {
      for (let i = 0; i < 30; i++) {
        const client = new Client(
          { name: `invented-${i}`, version: '1.0.0' },
          { versionNegotiation: { mode: { pin: '2026-07-28' } } },
        );
        await client.connect(new StreamableHTTPClientTransport(own.url));
        await client.listTools();
        await client.close();
      }
      const health = (await (await fetch(new URL('/', own.url))).json()) as Record<string, unknown>;
      // Without authentication everyone is one identity, which has 20 places.
      expect(health).toMatchObject({ sessionless_clients: 20, sessionless_clients_not_followed: 10 });
      expect(own.events.ofType('mcp.client.connected')).toHaveLength(20);
    } finally {
      await own.satellite.close();
    }
  });
});
