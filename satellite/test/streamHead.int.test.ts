import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SatelliteApp } from '../src/app.ts';
import { fixtureModernServer, referenceServer } from './helpers.ts';
import { startTestSatellite } from './startTestSatellite.ts';

/**
 * The head of a 2025 session's event stream: a quick call's head travels with its result, but a
 * slow call's head must not wait for the result, or an HTTP client timing out on headers would give
 * up on a long call that is still running.
 */

let satellite: SatelliteApp;
let url: URL;
let sessionId: string;

const post = (body: object, extra: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...extra,
    },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  const started = await startTestSatellite({ servers: [referenceServer('modern', [fixtureModernServer])] });
  satellite = started.satellite;
  url = started.url;
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  sessionId = init.headers.get('mcp-session-id') as string;
  await init.text();
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId })).text();
}, 60000);

afterAll(async () => {
  await satellite.close();
});

const call = (id: number, tool: string, args: object) =>
  post(
    {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'execute_mcp_tool', arguments: { tool_path: tool, arguments: args } },
    },
    { 'mcp-session-id': sessionId },
  );

describe('the head of a POST event stream', () => {
  it('is sent before a slow call ends', async () => {
    // A call that would run for an hour: its head can only arrive while it is still running. Were the
    // head held until the result, the response would never come and the test would fail on its timeout.
    const stop = new AbortController();
    const response = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'execute_mcp_tool',
          arguments: { tool_path: 'modern:slow_task', arguments: { steps: 1, delay_ms: 3_600_000 } },
        },
      },
      { 'mcp-session-id': sessionId },
      stop.signal,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    await (
      await post(
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'test over' } },
        { 'mcp-session-id': sessionId },
      )
    ).text();
    stop.abort();
  });

  it('carries a quick call its whole stream', async () => {
    const response = await call(3, 'modern:slow_task', { steps: 1, delay_ms: 0 });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    expect(text).toMatch(/^event: message\ndata: /);
    expect(text).toContain('done after 1 steps');
  });
});
