import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type RoundRobinProxy, startRoundRobinProxy } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingServer, freePort, stdioServer, textOf } from './helpers.ts';
import { spawnSatellite } from './spawnSatellite.ts';

/**
 * Two satellite processes behind a load balancer without affinity (a real HTTP proxy that sends each
 * request to the next replica in turn, as nginx does by default): a 2026-07-28 client is served by
 * whichever replica each request reaches, the retry of a call that asked it for input is forwarded to
 * the replica holding the call, and a 2025 client that lands on the wrong replica is told why.
 */

const replicas: { child: ChildProcess; port: number }[] = [];
let proxy: RoundRobinProxy;
let url: URL;
const clients: Client[] = [];

async function startReplica(configFile: string, secret: string) {
  const port = await freePort();
  // Listening, and the servers' first starts over: the tests need them online on both replicas.
  const { child } = await spawnSatellite(
    {
      SATELLITE_CONFIG_FILE: configFile,
      PROCESS_IDLE_TIMEOUT_MS: '0',
      SATELLITE_REPLICA_URL: `http://127.0.0.1:${port}`,
      SATELLITE_REPLICA_SECRET: secret,
    },
    { port, readyMessage: 'MCP servers started' },
  );
  replicas.push({ child, port });
}

beforeAll(async () => {
  const configFile = join(mkdtempSync(join(tmpdir(), 'satellite-replicas-')), 'servers.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      servers: [
        stdioServer('everything', {
          process_id: 'everything-alpha-inst-everything',
          installation_id: 'inst-everything',
          server_slug: 'everything',
          args: [everythingServer, 'stdio'],
          env: {},
        }),
        stdioServer('fixture'),
      ],
    }),
  );
  const secret = randomBytes(32).toString('base64url');
  await Promise.all([startReplica(configFile, secret), startReplica(configFile, secret)]);
  proxy = await startRoundRobinProxy(replicas.map((r) => ({ host: '127.0.0.1', port: r.port })));
  url = new URL(`http://127.0.0.1:${proxy.port}/mcp`);
}, 60000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await proxy?.close();
  for (const { child } of replicas) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

/** A 2026-07-28 client through the proxy, answering elicitation with `city` when it declares it. */
async function modernClient(options: { city?: string; neverAnswer?: () => void } = {}) {
  const elicits = options.city !== undefined || options.neverAnswer !== undefined;
  const client = new Client(
    { name: 'behind-a-balancer', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: elicits ? { elicitation: { form: {} } } : {},
    },
  );
  if (elicits) {
    client.setRequestHandler('elicitation/create', () => {
      if (options.neverAnswer) {
        options.neverAnswer();
        return new Promise<never>(() => {});
      }
      return Promise.resolve({
        action: 'accept' as const,
        content: { city: options.city ?? '', name: 'Ada Lovelace', check: true, integer: 7 },
      });
    });
  }
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const execute = (toolPath: string, args: Record<string, unknown>) => ({
  name: 'execute_mcp_tool',
  arguments: { tool_path: toolPath, arguments: args },
});

describe('a 2026-07-28 client behind two satellite replicas', () => {
  it('is served by whichever replica gets each request, with no session to stick to', async () => {
    const { client, transport } = await modernClient();
    expect(transport.sessionId).toBeUndefined();
    const before = proxy.served();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['discover_mcp_tools', 'execute_mcp_tool']);
    for (let i = 0; i < 6; i++) {
      const found = JSON.parse(
        textOf(await client.callTool({ name: 'discover_mcp_tools', arguments: { query: 'echo' } })),
      ) as { tools: { tool_path: string }[] };
      expect(found.tools.map((t) => t.tool_path)).toContain('everything:echo');
      const echoed = await client.callTool(execute('everything:echo', { message: `round ${i}` }));
      expect(echoed.content).toEqual([{ type: 'text', text: `Echo: round ${i}` }]);
    }
    // Both replicas answered, half each.
    const [first, second] = proxy.served().map((n, i) => n - (before[i] ?? 0));
    expect(first).toBeGreaterThan(5);
    expect(Math.abs((first ?? 0) - (second ?? 0))).toBeLessThanOrEqual(1);
  });

  it('finishes a call that asked it for input, though the retry reaches the other replica', async () => {
    const { client } = await modernClient({ city: 'Porto' });
    for (const [tool, args, expected] of [
      ['fixture:ask_client', { kind: 'elicitation' }, 'Porto'],
      ['everything:trigger-elicitation-request', {}, 'Ada Lovelace'],
    ] as const) {
      const before = proxy.served();
      const result = await client.callTool(execute(tool, args));
      expect(result.isError, tool).toBeFalsy();
      expect(JSON.stringify(result.content), tool).toContain(expected);
      // The call and its retry went to one replica each: the retry was forwarded to the one holding the call.
      expect(proxy.served().map((n, i) => n - (before[i] ?? 0))).toEqual([1, 1]);
    }
  });

  it("blocks no other client's input when one leaves its input request unanswered", async () => {
    let asked: () => void = () => {};
    const silentWasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const { client: silent } = await modernClient({ neverAnswer: () => asked() });
    // Left asking: this call stays in flight on one replica, waiting for an answer that never comes.
    void silent.callTool(execute('fixture:ask_client', { kind: 'elicitation' })).catch(() => {});
    await silentWasAsked;
    const { client } = await modernClient({ city: 'Lyon' });
    const startedOn = new Set<number>();
    for (let i = 0; i < 2; i++) {
      // A call and its retry are two requests: one more request between the calls starts the second
      // call on the other replica, so one of them runs beside the call left waiting.
      if (i > 0) await client.listTools();
      startedOn.add(proxy.served().reduce((sum, n) => sum + n, 0) % 2);
      const result = await client.callTool(execute('fixture:ask_client', { kind: 'elicitation' }));
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain('Lyon');
    }
    expect(startedOn.size).toBe(2);
  });
});

describe('a 2025 client behind two satellite replicas', () => {
  it('keeps its session on the replica that opened it; the other replica says affinity is needed', async () => {
    const first = replicas[0] as (typeof replicas)[number];
    const second = replicas[1] as (typeof replicas)[number];
    const client = new Client({ name: 'legacy', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${first.port}/mcp`));
    await client.connect(transport);
    clients.push(client);
    for (const body of [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      // The plain tool call takes another path through the gateway: it says the same.
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'discover_mcp_tools', arguments: { query: 'x' } },
      },
    ]) {
      const elsewhere = await fetch(`http://127.0.0.1:${second.port}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId as string,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify(body),
      });
      expect(elsewhere.status).toBe(404);
      const answer = (await elsewhere.json()) as { error: { message: string } };
      expect(answer.error.message).toContain('session affinity on the Mcp-Session-Id header');
    }
    // Where it was opened, it works.
    expect((await client.listTools()).tools).toHaveLength(2);
  });
});
