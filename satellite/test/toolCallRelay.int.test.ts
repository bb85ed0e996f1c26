import { Client, type ClientCapabilities, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SatelliteApp } from '../src/app.ts';
import type { createRecordingEventSink } from '../src/events/createRecordingEventSink.ts';
import { everythingServer, fixtureModernServer, referenceServer, textOf, waitUntil } from './helpers.ts';
import { startTestSatellite } from './startTestSatellite.ts';

/**
 * What travels with execute_mcp_tool besides arguments and result, through a real satellite to real
 * servers of both generations: server-everything (2025, stdio) and a 2026-07-28-only fixture (stdio),
 * called by v2 clients of both generations.
 */

const clients: Client[] = [];
const satellites: SatelliteApp[] = [];
const sinks: ReturnType<typeof createRecordingEventSink>[] = [];
let url: URL;
let otherReplica: URL;

async function startSatellite(env: Record<string, string> = {}) {
  const started = await startTestSatellite({
    servers: [
      referenceServer('everything', [everythingServer, 'stdio']),
      referenceServer('modern', [fixtureModernServer]),
    ],
    env,
  });
  satellites.push(started.satellite);
  sinks.push(started.events);
  return started.url;
}

beforeAll(async () => {
  // In this order: the second one, with a short answer timeout, is satellites[1] and sinks[1].
  url = await startSatellite();
  otherReplica = await startSatellite({ MCP_INPUT_ANSWER_TIMEOUT_MS: '400' });
}, 60000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  for (const satellite of satellites) await satellite.close();
});

type Era = 'legacy' | 'modern';

/** A v2 client of one generation, declaring `capabilities`, answering what the server asks. */
async function connect(era: Era, capabilities: ClientCapabilities = {}, target = url) {
  const client = new Client(
    { name: `relay-${era}`, version: '1.0.0' },
    { capabilities, ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) },
  );
  if (capabilities.elicitation) {
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Ada Lovelace', check: true, city: 'Lisbon', email: 'ada@example.com' },
    }));
  }
  if (capabilities.sampling) {
    client.setRequestHandler('sampling/createMessage', async (request) => ({
      model: 'test-model',
      role: 'assistant',
      content: { type: 'text', text: `sampled: ${JSON.stringify(request.params.messages.at(-1)?.content)}` },
    }));
  }
  if (capabilities.roots) {
    client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work/project', name: 'project' }] }));
  }
  await client.connect(new StreamableHTTPClientTransport(target));
  clients.push(client);
  return client;
}

const execute = (toolPath: string, args: Record<string, unknown>) => ({
  name: 'execute_mcp_tool',
  arguments: { tool_path: toolPath, arguments: args },
});

async function cancelledCount(client: Client) {
  return Number(textOf(await client.callTool(execute('modern:cancelled_count', {}))));
}

describe.each(['legacy', 'modern'] as const)('execute_mcp_tool for a %s client', (era) => {
  it("forwards the client's progress token and delivers the server's progress on the same call", async () => {
    const client = await connect(era);
    for (const [toolPath, args, steps] of [
      ['modern:slow_task', { steps: 4, delay_ms: 20 }, 4],
      ['everything:trigger-long-running-operation', { duration: 0.4, steps: 4 }, 4],
    ] as const) {
      const progress: { progress: number; total?: number }[] = [];
      const result = await client.callTool(execute(toolPath, args), {
        onprogress: (update) => progress.push(update),
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(progress.map((p) => p.progress)).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
      expect(progress.every((p) => p.total === steps)).toBe(true);
    }
  });

  it('cancels the upstream call when the client cancels it', async () => {
    const client = await connect(era);
    const before = await cancelledCount(client);
    const controller = new AbortController();
    const call = client.callTool(execute('modern:slow_task', { steps: 200, delay_ms: 25 }), {
      signal: controller.signal,
      onprogress: () => controller.abort('the user pressed stop'),
    });
    await expect(call).rejects.toThrow();
    let after = before;
    const deadline = Date.now() + 5000;
    while (after === before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await cancelledCount(client);
    }
    expect(after).toBe(before + 1);
  });

  it("relays the server's elicitation, sampling and roots requests to a client that declared them", async () => {
    const client = await connect(era, { elicitation: {}, sampling: {}, roots: {} });
    const elicited = await client.callTool(execute('modern:ask_client', { kind: 'elicitation' }));
    expect(JSON.parse(textOf(elicited))).toMatchObject({ action: 'accept', content: { city: 'Lisbon' } });
    const sampled = await client.callTool(execute('modern:ask_client', { kind: 'sampling' }));
    expect(textOf(sampled)).toContain('sampled:');
    const roots = await client.callTool(execute('modern:ask_client', { kind: 'roots' }));
    expect(textOf(roots)).toContain('file:///work/project');
    // A 2025 server asks with real requests; the client answers the same way.
    const legacyElicited = await client.callTool(execute('everything:trigger-elicitation-request', {}));
    expect(JSON.stringify(legacyElicited)).toContain('Ada Lovelace');
    const legacySampled = await client.callTool(
      execute('everything:trigger-sampling-request', { prompt: 'hello', maxTokens: 10 }),
    );
    expect(JSON.stringify(legacySampled)).toContain('sampled:');
    // Roots are not given over a 2025 stdio connection: nothing ties the request to this call, and the
    // server keeps what it gets for every client of the process (the runtime's README says why).
    const legacyRoots = await client.callTool(execute('everything:get-roots-list', {}));
    expect(JSON.stringify(legacyRoots)).not.toContain('file:///work/project');
    expect(textOf(legacyRoots)).toContain('no roots are currently configured');
  });

  it('refuses, with a clear error, what the client did not declare', async () => {
    const client = await connect(era, {});
    const refused = await client.callTool(execute('modern:ask_client', { kind: 'elicitation' }));
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/elicitation/);
  });
});

describe('input requested from a 2026-07-28 client', () => {
  /** A raw 2026-07-28 tools/call, so the test holds the input-required result itself. */
  async function rawCall(target: URL, params: Record<string, unknown>, capabilities: object = { elicitation: {} }) {
    const response = await fetch(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'execute_mcp_tool',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'execute_mcp_tool',
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': capabilities,
          },
        },
      }),
    });
    const text = await response.text();
    const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
    return JSON.parse(data) as {
      result?: { resultType?: string; requestState?: string; inputRequests?: Record<string, { method: string }> };
      error?: { code: number; message: string };
    };
  }
  const askElicitation = { arguments: { tool_path: 'modern:ask_client', arguments: { kind: 'elicitation' } } };

  it('gets an input-required result, and its retry with the answers resumes the same upstream call', async () => {
    const first = await rawCall(url, askElicitation);
    expect(first.result?.resultType).toBe('input_required');
    const [key, request] = Object.entries(first.result?.inputRequests ?? {})[0] ?? [];
    expect(request?.method).toBe('elicitation/create');
    const retry = await rawCall(url, {
      ...askElicitation,
      requestState: first.result?.requestState,
      inputResponses: { [key as string]: { action: 'accept', content: { city: 'Porto' } } },
    });
    expect(JSON.stringify(retry.result)).toContain('Porto');
    // The same state again finds nothing: the call it named has finished.
    const replay = await rawCall(url, {
      ...askElicitation,
      requestState: first.result?.requestState,
      inputResponses: { [key as string]: { action: 'accept', content: { city: 'Faro' } } },
    });
    expect(replay.error).toMatchObject({ code: -32602 });
  });

  it("counts a call that asked for input once in its client's record, whatever rounds it took", async () => {
    const client = new Client(
      { name: 'counted-2026', version: '2.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Ada Lovelace', check: true, city: 'Braga', email: 'ada@example.com' },
    }));
    await client.connect(new StreamableHTTPClientTransport(url));
    clients.push(client);
    expect(textOf(await client.callTool(execute('modern:ask_client', { kind: 'elicitation' })))).toContain('Braga');
    expect(textOf(await client.callTool(execute('everything:echo', { message: 'counted' })))).toContain('counted');
    const sink = sinks[0] as ReturnType<typeof createRecordingEventSink>;
    const connected = await sink.waitFor('mcp.client.connected', (d) => d.client_name === 'counted-2026');
    expect(connected).toMatchObject({ client_version: '2.0.0', transport: 'stateless' });
    (satellites[0] as SatelliteApp).clients.sweep();
    const activity = await sink.waitFor('mcp.client.activity', (d) => d.session_id === connected.session_id);
    expect(activity.tool_execution_count).toBe(2);
  });

  it('refuses a tampered state, and a retry that reaches another replica says so', async () => {
    const first = await rawCall(url, askElicitation);
    const state = first.result?.requestState as string;
    const tampered = await rawCall(url, { ...askElicitation, requestState: `${state}-TAMPERED`, inputResponses: {} });
    expect(tampered.error).toMatchObject({ code: -32602 });
    const elsewhere = await rawCall(otherReplica, { ...askElicitation, requestState: state, inputResponses: {} });
    // These two replicas share no SATELLITE_REPLICA_SECRET: the other cannot even read the state.
    expect(elsewhere.error?.code).toBe(-32602);
    expect(elsewhere.error?.message).toContain('only when they share SATELLITE_REPLICA_SECRET');
  });

  it('cancels the waiting upstream call when the client never answers', async () => {
    const first = await rawCall(otherReplica, askElicitation);
    expect(first.result?.resultType).toBe('input_required');
    const satellite = satellites[1] as SatelliteApp;
    expect(satellite.suspended.size()).toBe(1);
    await waitUntil(() => satellite.suspended.size() === 0, 20000, 'the unanswered call to expire');
    const logged = await (sinks[1] as ReturnType<typeof createRecordingEventSink>).waitFor(
      'mcp.tool.executed',
      (d) => d.tool_name === 'ask_client',
    );
    expect(logged).toMatchObject({ success: false });
    expect(logged.error_message).toMatch(/cancel/i);
  });
});
