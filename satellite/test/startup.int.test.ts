import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { ServerConfiguration } from '@orbital/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, stdioServer, textOf, waitUntil } from './helpers.ts';
import { spawnSatellite } from './spawnSatellite.ts';

/**
 * The satellite process with servers that fail in the ways real ones do: it listens at once, says in
 * its health answer and to agents which server is starting or failing and why, and never exits
 * because of one.
 */

const running: ChildProcess[] = [];
const clients: Client[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  for (const child of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

type Health = {
  status: string;
  servers: {
    total: number;
    online: number;
    starting: number;
    failing: number;
    list: { server_name: string; status: string; state: string; reason: string | null }[];
  };
};

async function startSatellite(servers: ServerConfiguration[], env: Record<string, string> = {}) {
  const file = join(mkdtempSync(join(tmpdir(), 'satellite-startup-')), 'servers.json');
  writeFileSync(file, JSON.stringify({ servers }));
  const { child, port } = await spawnSatellite({ SATELLITE_CONFIG_FILE: file, ...env });
  running.push(child);
  const health = async () => (await (await fetch(`http://127.0.0.1:${port}/`)).json()) as Health;
  const serverNamed = async (name: string) => (await health()).servers.list.find((s) => s.server_name === name);
  /** Server `name`'s entry once the health answer gives it `status`, asking again until `timeoutMs`. */
  const serverOnce = async (name: string, status: string, timeoutMs: number, what: string) => {
    let server: Awaited<ReturnType<typeof serverNamed>>;
    await waitUntil(
      () => server?.status === status,
      timeoutMs,
      what,
      async () => {
        server = await serverNamed(name);
      },
    );
    return server;
  };
  const connect = async () => {
    const client = await connectClient(new URL(`http://127.0.0.1:${port}/mcp`), 'startup-test');
    clients.push(client);
    return client;
  };
  return { child, port, health, serverNamed, serverOnce, connect };
}

const quitter = stdioServer('quitter', {
  args: ['-e', 'process.stderr.write("missing API_KEY\\n"); process.exit(5)'],
});
/** A process that never says a word: it never answers initialize. */
const silent = stdioServer('silent', { args: ['-e', 'setInterval(() => {}, 1000)'] });

describe('a satellite whose servers fail', () => {
  it('listens at once, keeps serving and explains when its only server exits at start', async () => {
    const satellite = await startSatellite([quitter], { RESTART_BACKOFF_MS: '50' });
    // Ready before the server's start is settled: the health check answers meanwhile.
    expect((await satellite.health()).status).toBe('ok');
    const failed = await satellite.serverOnce('quitter', 'permanently_failed', 20000, 'the server failed for good');
    expect(failed).toMatchObject({
      state: 'failed',
      reason:
        'permanently failed after 3 restarts: exited during the MCP handshake with code 5 (stderr: missing API_KEY)',
    });
    expect((await satellite.health()).servers).toMatchObject({ total: 1, online: 0, failing: 1 });

    const client = await satellite.connect();
    const found = JSON.parse(
      textOf(await client.callTool({ name: 'discover_mcp_tools', arguments: { query: 'anything' } })),
    ) as { tools: unknown[]; unavailable_servers: unknown[] };
    expect(found.tools).toEqual([]);
    expect(found.unavailable_servers).toEqual([
      {
        server_name: 'quitter',
        status: 'permanently_failed',
        reason:
          'permanently failed after 3 restarts: exited during the MCP handshake with code 5 (stderr: missing API_KEY)',
      },
    ]);
    const refused = await client.callTool({
      name: 'execute_mcp_tool',
      arguments: { tool_path: 'quitter:anything', arguments: {} },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('MCP server "quitter" is not online (status: permanently_failed;');
    expect(satellite.child.exitCode).toBeNull();
  });

  it('listens at once and says a server is starting, then why it is not online, when it never answers initialize', async () => {
    const satellite = await startSatellite([silent], { MCP_HANDSHAKE_TIMEOUT_MS: '5000', RESTART_BACKOFF_MS: '50' });
    const first = await satellite.serverNamed('silent');
    expect(first).toMatchObject({ status: 'connecting', state: 'starting', reason: 'starting' });
    expect((await satellite.health()).servers).toMatchObject({ total: 1, online: 0, starting: 1 });
    const later = await satellite.serverOnce('silent', 'restarting', 20000, 'the first handshake timed out');
    expect(later?.reason).toMatch(
      /^restarting \(attempt \d of 3\) after: did not answer the MCP handshake within 5000 ms$/,
    );
    expect(satellite.child.exitCode).toBeNull();
  });

  it('serves a working server at once while a silent one beside it is still in its first handshake', async () => {
    const satellite = await startSatellite([silent, stdioServer('working')]);
    await satellite.serverOnce('working', 'online', 15000, 'the working server online');
    const client = await satellite.connect();
    const echoed = await client.callTool({
      name: 'execute_mcp_tool',
      arguments: { tool_path: 'working:echo', arguments: { text: 'at once' } },
    });
    expect(textOf(echoed)).toBe('at once');
    // The silent server's handshake (30 s by default) is still under way: nothing waited for it.
    expect(await satellite.serverNamed('silent')).toMatchObject({ status: 'connecting', state: 'starting' });
    const found = JSON.parse(
      textOf(await client.callTool({ name: 'discover_mcp_tools', arguments: { query: 'echo' } })),
    ) as { tools: { tool_path: string }[]; unavailable_servers: unknown[] };
    expect(found.tools[0]?.tool_path).toBe('working:echo');
    expect(found.unavailable_servers).toEqual([{ server_name: 'silent', status: 'connecting', reason: 'starting' }]);
  });
});
