import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingServer, fixtureModernServer, referenceServer } from '../../test/helpers.ts';
import { startTestSatellite } from '../../test/startTestSatellite.ts';
import type { SatelliteApp } from '../app.ts';

/**
 * The plain 2026-07-28 tool call is answered without the SDK's per-request server. Each request
 * here goes to a real satellite twice: as the v2 client sends it (the short path) and with one
 * more member in the client's identity, which means nothing to the call but takes it through the
 * SDK. The two answers must be the same, byte for byte once parsed, for every kind of result.
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
    const before = await post('execute_mcp_tool', { tool_path: 'modern:cancelled_count', arguments: {} }, 1, false);
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
    const count = (r: Awaited<ReturnType<typeof post>>) => Number(r.body.result.content[0].text);
    for (let i = 0; i < 100; i++) {
      const after = await post('execute_mcp_tool', { tool_path: 'modern:cancelled_count', arguments: {} }, 3, false);
      if (count(after) === count(before) + 1) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the upstream call was not cancelled');
  });
});
