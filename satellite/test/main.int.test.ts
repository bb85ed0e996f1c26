import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childrenOf, freePort, groupMembers, stdioServer, waitUntil } from './helpers.ts';
import { refusedStartOf, spawnSatellite } from './spawnSatellite.ts';

const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function startSatellite(env: Record<string, string>) {
  const started = await spawnSatellite(env);
  running.push(started.child);
  return started;
}

describe('the satellite process', () => {
  it('starts without a configuration file, with no servers, and says so', async () => {
    const { child, port, output } = await startSatellite({});
    expect(output()).toContain('SATELLITE_CONFIG_FILE is not set');
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).json()).toMatchObject({ servers: { total: 0 } });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('standalone: serves /documentation by SATELLITE_ENABLE_DOCS, unless the file carries settings', async () => {
    const off = await startSatellite({ SATELLITE_ENABLE_DOCS: 'false' });
    expect((await fetch(`http://127.0.0.1:${off.port}/documentation`)).status).toBe(404);
    off.child.kill('SIGTERM');

    const file = join(mkdtempSync(join(tmpdir(), 'satellite-config-')), 'settings.json');
    writeFileSync(file, JSON.stringify({ servers: [], settings: { enable_swagger_docs: true } }));
    const { port } = await startSatellite({ SATELLITE_ENABLE_DOCS: 'false', SATELLITE_CONFIG_FILE: file });
    expect((await fetch(`http://127.0.0.1:${port}/documentation`)).status).toBe(200);
    const health = (await (await fetch(`http://127.0.0.1:${port}/`)).json()) as { settings: unknown };
    expect(health.settings).toMatchObject({
      enable_swagger_docs: true,
      source: 'file',
    });
  });

  it('refuses a configuration file that is not valid, naming the field', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'satellite-config-')), 'bad.json');
    writeFileSync(file, JSON.stringify({ servers: [{ ...stdioServer('x'), transport: 'stdio', command: undefined }] }));
    const refused = await refusedStartOf({
      SATELLITE_CONFIG_FILE: file,
      SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true',
    });
    expect(refused).toContain('exited with 1 before it was ready');
    expect(refused).toContain('servers.0.command: a stdio server needs a command');
  });

  it.each([
    [
      'a global satellite without authentication',
      {},
      'SATELLITE_AUTH_MODE: a global satellite serves every team: set SATELLITE_AUTH_MODE=oauth, or SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL=true',
    ],
    [
      'oauth without its URLs and the backend',
      { SATELLITE_AUTH_MODE: 'oauth' },
      'BACKEND_URL: required when SATELLITE_AUTH_MODE=oauth',
    ],
    [
      'a team satellite without its team',
      { SATELLITE_TYPE: 'team' },
      'SATELLITE_TEAM_ID: a team satellite needs its team id',
    ],
  ])('refuses to start as %s, naming the variable', async (_name, env, message) => {
    const refused = await refusedStartOf(env);
    expect(refused).toContain('exited with 1 before it was ready');
    expect(refused).toContain(message);
  });

  it('starts as a team satellite without authentication', async () => {
    const { child, port } = await startSatellite({
      SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: '',
      SATELLITE_TEAM_ID: 'team-1',
    });
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).json()).toMatchObject({ type: 'team', auth: 'none' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('leaves no process behind when it is killed outright', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'satellite-config-')), 'config.json');
    const stubborn = { env: { FIXTURE_STUBBORN: '1' } };
    writeFileSync(file, JSON.stringify({ servers: [stdioServer('one', stubborn), stdioServer('two', stubborn)] }));
    const { child } = await startSatellite({ SATELLITE_CONFIG_FILE: file });
    // The two servers, and the watchdog shell, each lead a process group of their own.
    const groups = childrenOf(child.pid as number);
    expect(groups.length).toBe(3);
    for (const pgid of groups) expect(groupMembers(pgid)).toContain(pgid);
    child.kill('SIGKILL');
    await waitUntil(() => groups.every((pgid) => groupMembers(pgid).length === 0), 15000, 'process groups gone');
  });

  it('stops its servers on SIGTERM, with SIGKILL for those that ignore it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'satellite-config-')), 'config.json');
    writeFileSync(file, JSON.stringify({ servers: [stdioServer('three', { env: { FIXTURE_STUBBORN: '1' } })] }));
    const { child } = await startSatellite({ SATELLITE_CONFIG_FILE: file, PROCESS_KILL_GRACE_MS: '200' });
    const groups = childrenOf(child.pid as number);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await waitUntil(() => groups.every((pgid) => groupMembers(pgid).length === 0), 10000, 'process groups gone');
  });

  it('serves Prometheus metrics on its own ops port, apart from /mcp', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'satellite-config-')), 'config.json');
    writeFileSync(file, JSON.stringify({ servers: [stdioServer('one'), stdioServer('two')] }));
    const metricsPort = await freePort();
    const { port } = await startSatellite({ SATELLITE_CONFIG_FILE: file, METRICS_PORT: String(metricsPort) });
    const ops = `http://127.0.0.1:${metricsPort}`;
    // Ready as soon as it listens, whatever its servers are doing.
    expect((await fetch(`${ops}/readyz`)).status).toBe(200);
    let text = '';
    await waitUntil(
      () => text.includes('orbital_satellite_servers{status="online",transport="stdio",service="satellite"} 2'),
      15000,
      'both servers online',
      async () => {
        text = await (await fetch(`${ops}/metrics`)).text();
      },
    );
    expect(text).toContain('orbital_satellite_processes{state="running",service="satellite"} 2');
    expect(text).toContain('orbital_satellite_sessions{service="satellite"} 0');
    // Not on the MCP listener.
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
  });
});
