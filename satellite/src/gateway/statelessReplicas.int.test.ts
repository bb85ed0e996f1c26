import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingServer, freePort, stdioServer, textOf } from '../../test/helpers.ts';

/**
 * Two satellite processes behind one address, as a load balancer without session affinity would
 * put them: a 2026-07-28 client whose every request goes to the other replica.
 */

const mainFile = fileURLToPath(new URL('../main.ts', import.meta.url));
const replicas: { child: ChildProcess; port: number; requests: number }[] = [];

async function startReplica(configFile: string) {
  const port = await freePort();
  const child = spawn(process.execPath, [mainFile], {
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'info',
      PORT: String(port),
      SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true',
      SATELLITE_CONFIG_FILE: configFile,
      PROCESS_IDLE_TIMEOUT_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('"msg":"ready"')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`satellite exited with ${code}`)));
  });
  replicas.push({ child, port, requests: 0 });
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
      ],
    }),
  );
  await Promise.all([startReplica(configFile), startReplica(configFile)]);
}, 60000);

afterAll(async () => {
  for (const { child } of replicas) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

/** A fetch that sends each request to the next replica in turn, as a round-robin balancer does. */
function roundRobin(): typeof fetch {
  let next = 0;
  return (input, init) => {
    const replica = replicas[next++ % replicas.length] as (typeof replicas)[number];
    replica.requests++;
    const target = new URL(input instanceof Request ? input.url : String(input));
    target.port = String(replica.port);
    return fetch(target, init);
  };
}

describe('a 2026-07-28 client behind two satellite replicas', () => {
  it('is served by whichever replica gets each request, with no session to stick to', async () => {
    const client = new Client(
      { name: 'alternating', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${replicas[0]?.port}/mcp`), {
      fetch: roundRobin(),
    });
    await client.connect(transport);
    expect(transport.sessionId).toBeUndefined();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['discover_mcp_tools', 'execute_mcp_tool']);
    for (let i = 0; i < 6; i++) {
      const found = JSON.parse(
        textOf(await client.callTool({ name: 'discover_mcp_tools', arguments: { query: 'echo' } })),
      ) as { tools: { tool_path: string }[] };
      expect(found.tools[0]?.tool_path).toBe('everything:echo');
      const echoed = await client.callTool({
        name: 'execute_mcp_tool',
        arguments: { tool_path: 'everything:echo', arguments: { message: `round ${i}` } },
      });
      expect(echoed.content).toEqual([{ type: 'text', text: `Echo: round ${i}` }]);
    }
    // Both replicas answered, about half each.
    const [first, second] = replicas.map((r) => r.requests);
    expect(first).toBeGreaterThan(5);
    expect(Math.abs((first ?? 0) - (second ?? 0))).toBeLessThanOrEqual(1);
    await client.close();
  });

  it('keeps a 2025 session on the replica that opened it: another replica answers 404', async () => {
    const first = replicas[0] as (typeof replicas)[number];
    const second = replicas[1] as (typeof replicas)[number];
    const client = new Client({ name: 'legacy', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${first.port}/mcp`));
    await client.connect(transport);
    const elsewhere = await fetch(`http://127.0.0.1:${second.port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId as string,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(elsewhere.status).toBe(404);
    await client.close();
  });
});
