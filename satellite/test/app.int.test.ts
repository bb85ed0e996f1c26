import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadConfig } from '@orbital/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSatelliteApp, type SatelliteApp } from '../src/app.ts';
import { satelliteEnv } from '../src/config.ts';
import { createRecordingEventSink } from '../src/events/createRecordingEventSink.ts';
import {
  everythingServer,
  freePort,
  httpServer,
  memoryServer,
  referenceServer,
  silentLogger,
  sseServer,
  startHttpFixture,
  startSseFixture,
  stdioServer,
  stopChild,
  textOf,
} from './helpers.ts';

const events = createRecordingEventSink();
let clock = Date.now();
let satellite: SatelliteApp;
let url: URL;
const fixtures: ChildProcess[] = [];
let doomedFixture: ChildProcess;
const clients: Client[] = [];

beforeAll(async () => {
  const port = await freePort();
  const doomedPort = await freePort();
  const ssePort = await freePort();
  fixtures.push(await startHttpFixture(port));
  fixtures.push(await startSseFixture(ssePort));
  doomedFixture = await startHttpFixture(doomedPort);
  fixtures.push(doomedFixture);
  const memoryFile = join(mkdtempSync(join(tmpdir(), 'satellite-memory-')), 'memory.jsonl');
  satellite = createSatelliteApp({
    config: loadConfig(satelliteEnv, {
      LOG_LEVEL: 'silent',
      SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true',
      REMOTE_HEALTH_INTERVAL_MS: '0',
      PROCESS_IDLE_TIMEOUT_MS: '0',
    }),
    servers: [
      referenceServer('everything', [everythingServer, 'stdio']),
      referenceServer('memory', [memoryServer], { MEMORY_FILE_PATH: memoryFile }),
      httpServer('remote', port),
      httpServer('doomed', doomedPort, { server_slug: 'doomed-http' }),
      sseServer('legacy', ssePort),
      stdioServer('fixture'),
    ],
    events,
    logger: silentLogger,
    now: () => clock,
  });
  await satellite.start();
  const address = await satellite.app.listen({ port: 0, host: '127.0.0.1' });
  url = new URL('/mcp', address);
}, 60000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await satellite?.close();
  for (const child of fixtures) await stopChild(child);
  expect(events.invalid).toEqual([]);
});

type Era = 'legacy' | 'modern';

/** A v2 SDK client: 2025-era (initialize, a session) or pinned to 2026-07-28 (stateless). */
async function connect(era: Era = 'legacy', userAgent = 'Claude-Desktop/1.0 test') {
  const client = new Client(
    { name: 'satellite-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'user-agent': userAgent } } });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

async function discover(client: Client, query: string, limit?: number) {
  const result = await client.callTool({
    name: 'discover_mcp_tools',
    arguments: limit === undefined ? { query } : { query, limit },
  });
  return JSON.parse(textOf(result)) as {
    tools: {
      tool_path: string;
      description: string;
      server_name: string;
      transport: string;
      relevance_score: number;
    }[];
    total_found: number;
    search_time_ms: number;
    query: string;
  };
}

async function execute(client: Client, toolPath: string, args: Record<string, unknown>) {
  return (await client.callTool({ name: 'execute_mcp_tool', arguments: { tool_path: toolPath, arguments: args } })) as {
    content: { type: string; text: string }[];
    isError?: boolean;
  };
}

describe('the MCP gateway', () => {
  it('answers initialize and the list methods exactly as the spec says', async () => {
    const { client } = await connect();
    expect(client.getServerVersion()?.name).toBe('service-satellite');
    expect(client.getServerCapabilities()).toEqual({ tools: {} });
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['discover_mcp_tools', 'execute_mcp_tool']);
    expect(tools.tools[0]?.inputSchema.required).toEqual(['query']);
    expect(tools.tools[1]?.inputSchema.required).toEqual(['tool_path', 'arguments']);
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await client.listPrompts()).prompts).toEqual([]);
    const connected = await events.waitFor('mcp.client.connected');
    expect(connected).toMatchObject({
      client_type: 'claude',
      client_name: 'satellite-test',
      client_version: '1.0.0',
      transport: 'sse',
      team_id: null,
    });
    expect(connected.session_id).toMatch(/^[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{43}$/);
  });

  it('ends a session on DELETE and refuses it afterwards', async () => {
    const { client, transport } = await connect('legacy', 'vscode-test');
    const sessionId = transport.sessionId as string;
    await transport.terminateSession();
    const disconnected = await events.waitFor('mcp.client.disconnected', (d) => d.session_id === sessionId);
    expect(disconnected.disconnect_reason).toBe('client_close');
    expect(client.transport?.sessionId).toBeUndefined();
    const raw = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': sessionId });
    expect(raw.status).toBe(404);
  });

  it("reports a live session's tool-call count when it has made calls since the last report", async () => {
    const { client, transport } = await connect();
    const sessionId = transport.sessionId as string;
    const mine = (d: { session_id: string }) => d.session_id === sessionId;
    const call = () =>
      client.callTool({
        name: 'execute_mcp_tool',
        arguments: { tool_path: 'everything:echo', arguments: { message: 'x' } },
      });
    await call();
    await call();
    await satellite.sessions.sweep();
    expect(await events.waitFor('mcp.client.activity', mine)).toMatchObject({ tool_execution_count: 2, team_id: null });
    await satellite.sessions.sweep();
    expect(events.ofType('mcp.client.activity').filter(mine)).toHaveLength(1);
    await call();
    await satellite.sessions.sweep();
    expect(
      events
        .ofType('mcp.client.activity')
        .filter(mine)
        .map((d) => d.tool_execution_count),
    ).toEqual([2, 3]);
  });

  it('expires sessions idle for 30 minutes', async () => {
    const { client, transport } = await connect();
    const sessionId = transport.sessionId as string;
    await client.callTool({
      name: 'execute_mcp_tool',
      arguments: { tool_path: 'everything:echo', arguments: { message: 'x' } },
    });
    clock += 29 * 60 * 1000;
    expect(await satellite.sessions.sweep()).toBe(0);
    await client.listTools(); // refreshes the session
    clock += 29 * 60 * 1000;
    await client.listTools();
    clock += 30 * 60 * 1000;
    await satellite.sessions.sweep();
    const disconnected = await events.waitFor('mcp.client.disconnected', (d) => d.session_id === sessionId);
    expect(disconnected).toMatchObject({ disconnect_reason: 'timeout', tool_execution_count: 1 });
    const raw = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': sessionId });
    expect(raw.status).toBe(404);
  });

  it('refuses requests without a session, with a session it never issued, and from foreign origins', async () => {
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(400);
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': 'made-up' })).status).toBe(
      404,
    );
    expect((await post(initialize('2025-03-26'), { origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(initialize('2025-03-26'), { host: 'evil.example' })).status).toBe(403);
    expect((await post(modernRequest('tools/list'), { origin: 'http://evil.example' })).status).toBe(403);
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(400);
  });

  it('speaks protocol revision 2025-03-26', async () => {
    const response = await post(initialize('2025-03-26'), { origin: 'http://localhost:5173' });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toMatch(/^[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{43}$/);
    const body = await response.text();
    expect(body).toContain('"protocolVersion":"2025-03-26"');
    expect(body).toContain('"name":"service-satellite"');
  });

  it('answers malformed bodies and invalid messages with JSON-RPC errors', async () => {
    const garbled = await postRaw('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(garbled.status).toBe(400);
    expect(JSON.parse(await garbled.text())).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
    const notRpc = await post({ hello: 'world' });
    expect(notRpc.status).toBe(400);
    expect(JSON.parse(await notRpc.text())).toMatchObject({ error: { code: -32600 } });
    const wrongType = await postRaw('{}', { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(JSON.parse(await wrongType.text())).toMatchObject({ error: { code: -32000 } });
  });

  it('serves health and documentation', async () => {
    const health = await fetch(new URL('/', url));
    expect(await health.json()).toMatchObject({ status: 'ok', servers: { total: 6 } });
    const docs = await fetch(new URL('/documentation', url));
    expect(((await docs.json()) as { paths: object }).paths).toHaveProperty('/mcp');
  });

  it('hides and refuses the tools of a server that is not online, on both generations', async () => {
    const legacy = (await connect('legacy')).client;
    const modern = (await connect('modern')).client;
    for (const client of [legacy, modern]) {
      expect((await discover(client, 'doomed-http')).tools.map((t) => t.tool_path)).toContain('doomed:greet');
    }
    await stopChild(doomedFixture);
    await satellite.runtime.checkHealth();
    await events.waitFor('mcp.server.status_changed', (d) => d.server_id === 'inst-doomed' && d.status === 'offline');
    for (const client of [legacy, modern]) {
      expect((await discover(client, 'doomed-http')).tools.map((t) => t.tool_path)).not.toContain('doomed:greet');
      const refused = await execute(client, 'doomed:greet', { name: 'x' });
      expect(refused.isError).toBe(true);
      // Lost, then (once a reconnection attempt has failed) not reachable: the latest failure is the reason.
      expect(refused.content[0]?.text).toMatch(
        /^MCP server "doomed" is not online \(status: offline; (connection lost|not reachable): .+\); its tools cannot be executed until it is\.$/,
      );
      expect((await execute(client, 'remote:greet', { name: 'still' })).content[0]?.text).toContain('hello still');
    }
  });
});

describe.each(['legacy', 'modern'] as const)('the meta-tools for a %s client', (era) => {
  it('discovers the tools of stdio and HTTP servers', async () => {
    const { client } = await connect(era);
    const echo = await discover(client, 'echo');
    expect(echo.query).toBe('echo');
    expect(echo.tools[0]).toMatchObject({
      tool_path: 'everything:echo',
      server_name: 'everything',
      transport: 'stdio',
    });
    expect(echo.total_found).toBe(echo.tools.length);
    const scores = echo.tools.map((t) => t.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    expect((await discover(client, 'entities')).tools.map((t) => t.tool_path)).toContain('memory:create_entities');
    expect((await discover(client, 'greets over http')).tools[0]).toMatchObject({
      tool_path: 'remote:greet',
      transport: 'http',
    });
    expect((await discover(client, 'a', 3)).tools.length).toBeLessThanOrEqual(3);
    expect((await discover(client, 'zzqxjv')).tools).toEqual([]);
  });

  it("executes tools on stdio and HTTP servers and hands back the server's own result", async () => {
    const { client } = await connect(era);
    const echoed = await execute(client, 'everything:echo', { message: 'over the satellite' });
    expect(echoed.isError).toBeUndefined();
    expect(echoed.content).toEqual([{ type: 'text', text: 'Echo: over the satellite' }]);
    const sum = await execute(client, 'everything:get-sum', { a: 2, b: 40 });
    expect(sum.content[0]?.text).toContain('42');
    await execute(client, 'memory:create_entities', {
      entities: [{ name: `Orbital-${era}`, entityType: 'project', observations: ['runs MCP servers'] }],
    });
    const graph = await execute(client, 'memory:read_graph', {});
    expect(graph.content[0]?.text).toContain('runs MCP servers');
    expect((await execute(client, 'remote:greet', { name: 'ada' })).content[0]?.text).toContain('hello ada');
  });

  it('hands back images, embedded resources, resource links and structured content as such', async () => {
    const { client } = await connect(era);
    const image = await execute(client, 'everything:get-tiny-image', {});
    expect(image.content.map((c) => c.type)).toEqual(['text', 'image', 'text']);
    expect(image.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect((image.content[1] as { data?: string }).data).toMatch(/^iVBORw0KGgo/);
    const structured = (await execute(client, 'everything:get-structured-content', { location: 'New York' })) as {
      structuredContent?: Record<string, unknown>;
      content: { type: string; text?: string }[];
    };
    expect(structured.structuredContent).toMatchObject({ temperature: expect.any(Number) });
    const embedded = await execute(client, 'everything:get-resource-reference', {
      resourceType: 'Text',
      resourceId: 3,
    });
    expect(embedded.content.map((c) => c.type)).toContain('resource');
    const links = await execute(client, 'everything:get-resource-links', { count: 2 });
    expect(links.content.filter((c) => c.type === 'resource_link')).toHaveLength(2);
  });

  it('discovers and executes the tools of a remote server over SSE', async () => {
    const { client } = await connect(era);
    expect((await discover(client, 'over SSE')).tools[0]).toMatchObject({
      tool_path: 'legacy:greet',
      server_name: 'legacy',
      transport: 'sse',
    });
    const greeted = await execute(client, 'legacy:greet', { name: 'grace' });
    expect(greeted.isError).toBeUndefined();
    expect(greeted.content[0]?.text).toContain('hello grace');
  });

  it('answers bad arguments with a tool error naming the field', async () => {
    const { client } = await connect(era);
    const before = satellite.runtime.snapshot().find((s) => s.server_name === 'everything')?.requests.request_count;
    const bad = await execute(client, 'everything:get-sum', { a: 'two' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/Invalid arguments for "everything:get-sum".*\/a must be number/);
    expect(satellite.runtime.snapshot().find((s) => s.server_name === 'everything')?.requests.request_count).toBe(
      before,
    );
    const unknown = await execute(client, 'everything:no-such-tool', {});
    expect(unknown).toMatchObject({ isError: true });
    expect(unknown.content[0]?.text).toContain('Unknown tool');
    const noPath = await client.callTool({ name: 'execute_mcp_tool', arguments: { arguments: {} } });
    expect(noPath).toMatchObject({ isError: true });
    expect(textOf(noPath)).toContain('"tool_path" is required');
    const noArguments = await client.callTool({
      name: 'execute_mcp_tool',
      arguments: { tool_path: 'everything:echo' },
    });
    expect(noArguments).toMatchObject({ isError: true });
    expect(textOf(noArguments)).toContain('"arguments" is required');
    const noQuery = await client.callTool({ name: 'discover_mcp_tools', arguments: {} });
    expect(noQuery).toMatchObject({ isError: true });
    expect(textOf(noQuery)).toContain('"query" is required');
    const badLimit = await client.callTool({ name: 'discover_mcp_tools', arguments: { query: 'echo', limit: 'ten' } });
    expect(textOf(badLimit)).toContain('"limit" must be a number');
  });

  it('shows tools a server adds in the next discovery, without notifying clients', async () => {
    const { client } = await connect(era);
    let notified = 0;
    client.fallbackNotificationHandler = async () => {
      notified++;
    };
    const name = `brand_new_widget_${era}`;
    await execute(client, 'fixture:add_tool', { name });
    await events.waitFor('mcp.tools.updated', (d) => d.added_tools.includes(name));
    expect((await discover(client, name)).tools[0]?.tool_path).toBe(`fixture:${name}`);
    expect(notified).toBe(0);
  });

  it('reports each execution in the request log', async () => {
    const { client } = await connect(era);
    await execute(client, 'everything:echo', { message: `logged ${era}` });
    const logged = await events.waitFor(
      'mcp.tool.executed',
      (d) => (d.request_params as { message?: string }).message === `logged ${era}`,
    );
    expect(logged).toMatchObject({ tool_name: 'echo', success: true, installation_id: 'inst-everything' });
    expect(logged.session_id === null).toBe(era === 'modern');
  });
});

describe('a 2026-07-28 client', () => {
  it('is served without a session: no initialize, no session id, any request on its own', async () => {
    const { client, transport } = await connect('modern');
    expect(client.getProtocolEra()).toBe('modern');
    await client.listTools();
    expect(transport.sessionId).toBeUndefined();
    const raw = await post(modernRequest('tools/list'));
    expect(raw.status).toBe(200);
    expect(raw.headers.get('mcp-session-id')).toBeNull();
    const body = JSON.parse(await raw.text()) as { result: Record<string, unknown> };
    expect(body.result).toMatchObject({
      ttlMs: expect.any(Number),
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'service-satellite' } },
    });
  });

  it('finds the satellite through server/discover', async () => {
    const discovered = await post(modernRequest('server/discover'));
    expect(discovered.status).toBe(200);
    const body = JSON.parse(await discovered.text()) as { result: Record<string, unknown> };
    expect(body.result).toMatchObject({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} } });
  });

  it('opens a subscriptions/listen stream, acknowledged with the filter the satellite honours', async () => {
    const controller = new AbortController();
    const body = modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } });
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    let text = '';
    while (!text.includes('notifications/subscriptions/acknowledged')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('notifications/subscriptions/acknowledged');
    controller.abort();
  });

  it('has its headers checked against the body, an unknown revision refused, and removed methods refused', async () => {
    const mismatch = await post(modernRequest('tools/list'), { 'mcp-method': 'tools/call' });
    expect(mismatch.status).toBe(400);
    expect(JSON.parse(await mismatch.text())).toMatchObject({ error: { code: -32020 } });
    const unknown = await post(modernRequest('tools/list', {}, '2027-01-01'), { 'mcp-protocol-version': '2027-01-01' });
    expect(unknown.status).toBe(400);
    expect(JSON.parse(await unknown.text())).toMatchObject({
      error: { code: -32022, data: { supported: ['2026-07-28'] } },
    });
    const removed = await post(modernRequest('ping'));
    expect(removed.status).toBe(404);
    expect(JSON.parse(await removed.text())).toMatchObject({ error: { code: -32601 } });
  });
});

function initialize(protocolVersion: string) {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
}

/** A raw 2026-07-28 request: the revision in its `_meta` and its headers. */
function modernRequest(method: string, params: Record<string, unknown> = {}, version = '2026-07-28') {
  return {
    jsonrpc: '2.0',
    id: 7,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': version,
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

function post(body: unknown, headers: Record<string, string> = {}) {
  const method = (body as { method?: string; params?: { _meta?: Record<string, unknown> } }).method;
  const modern = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.[
    'io.modelcontextprotocol/protocolVersion'
  ];
  return postRaw(JSON.stringify(body), {
    ...(typeof modern === 'string' && method ? { 'mcp-protocol-version': modern, 'mcp-method': method } : {}),
    ...headers,
  });
}

async function postRaw(body: string, headers: Record<string, string> = {}) {
  const { host, ...rest } = headers;
  const { request } = await import('node:http');
  // fetch forbids setting Host; node:http lets the rebinding case be sent as a browser would.
  return new Promise<{ status: number; headers: Headers; text: () => Promise<string> }>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(host ? { host } : {}),
          ...rest,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') responseHeaders.set(k, v);
          resolve({
            status: res.statusCode ?? 0,
            headers: responseHeaders,
            text: async () => Buffer.concat(chunks).toString(),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
