import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSatellite } from '../../test/startTestSatellite.ts';
import type { SatelliteApp } from '../app.ts';

/**
 * `/mcp` against clients that mean harm, through a real socket: what they send is refused with a
 * JSON-RPC error before anything walks it, and the satellite keeps serving the next client.
 */
let satellite: SatelliteApp;
let url: URL;

beforeAll(async () => {
  ({ satellite, url } = await startTestSatellite({ servers: [] }));
});

afterAll(async () => {
  await satellite?.close();
});

async function post(body: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body,
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe('/mcp and hostile bodies', () => {
  it('refuses a body nested far deeper than any call needs with 400 Invalid Request, and serves on', async () => {
    const depth = 10_000;
    const deepParams = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const deepArguments = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'execute_mcp_tool', arguments: { tool_path: 'a:b', arguments: { x: 1 } } },
    }).replace('{"x":1}', `${'{"x":'.repeat(depth)}1${'}'.repeat(depth)}`);
    for (const body of [deepParams, deepArguments, '['.repeat(depth) + ']'.repeat(depth)]) {
      expect(await post(body)).toEqual({
        status: 400,
        body: {
          jsonrpc: '2.0',
          error: { code: -32600, message: 'Invalid Request: the body nests deeper than 64 levels' },
          id: null,
        },
      });
    }
    const health = await fetch(new URL('/', url));
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });
});
