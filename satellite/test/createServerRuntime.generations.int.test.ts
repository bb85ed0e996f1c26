import { describe, expect, it } from 'vitest';
import { createRuntimeHarness } from './createRuntimeHarness.ts';
import { fixtureModernServer, httpServer, sseServer, stdioServer, textOf, waitUntil } from './helpers.ts';

const harness = createRuntimeHarness();

const modernStdio = (name: string) => stdioServer(name, { args: [fixtureModernServer] });
const snapshotOf = (rt: ReturnType<typeof harness.start>, name: string) =>
  rt.snapshot().find((s) => s.server_name === name);

describe('each upstream server in its own generation', () => {
  it('runs a 2026-07-28-only stdio server beside a 2025 one, each on the revision it speaks', async () => {
    const rt = harness.start([modernStdio('modern'), stdioServer('legacy')]);
    await rt.start();
    expect(snapshotOf(rt, 'modern')).toMatchObject({ status: 'online', protocol_version: '2026-07-28' });
    expect(snapshotOf(rt, 'legacy')).toMatchObject({ status: 'online', protocol_version: '2025-11-25' });
    expect(textOf(await rt.callTool(harness.found('modern:echo'), { text: 'new' }))).toBe('new');
    expect(textOf(await rt.callTool(harness.found('legacy:echo'), { text: 'old' }))).toBe('old');
    const discovered = harness.events.ofType('mcp.tools.discovered').find((d) => d.installation_name === 'modern');
    expect(discovered?.tools.map((t) => t.tool_name)).toEqual(
      expect.arrayContaining(['echo', 'slow_task', 'ask_client', 'structured']),
    );
  });

  it('probes a stdio installation once: its restarted process is not probed again, a restart command probes anew', async () => {
    const rt = harness.start([stdioServer('once')]);
    await rt.start();
    const probes = async () => Number(textOf(await rt.callTool(harness.found('once:probe_count'), {})));
    expect(await probes()).toBe(1);
    await expect(rt.callTool(harness.found('once:crash'), { code: 9 })).rejects.toThrow(/exited with code 9/);
    await harness.events.waitFor('mcp.server.restarted');
    await waitUntil(() => rt.lookup('once:probe_count').kind === 'found', 5000, 'online again');
    expect(await probes()).toBe(0);
    expect(await rt.restart('inst-once')).toBe('restarted');
    expect(await probes()).toBe(1);
  });

  it('starts a server that exits on the probe again as a 2025 server, without counting a crash', async () => {
    const rt = harness.start([stdioServer('strict', { env: { FIXTURE_EXIT_ON_PROBE: '1' } })]);
    await rt.start();
    expect(snapshotOf(rt, 'strict')).toMatchObject({ status: 'online', protocol_version: '2025-11-25' });
    expect(textOf(await rt.callTool(harness.found('strict:echo'), { text: 'hi' }))).toBe('hi');
    expect(harness.events.ofType('mcp.server.crashed')).toEqual([]);
    // The verdict stands for its next process: no probe, no exit.
    await expect(rt.callTool(harness.found('strict:crash'), { code: 3 })).rejects.toThrow(/exited with code 3/);
    await harness.events.waitFor('mcp.server.restarted');
    await waitUntil(() => rt.lookup('strict:echo').kind === 'found', 5000, 'online again');
    expect(harness.events.ofType('mcp.server.crashed')).toHaveLength(1);
  });

  it('restarts a crashed 2026-07-28-only server on the verdict it already has', async () => {
    const rt = harness.start([modernStdio('modern')]);
    await rt.start();
    await expect(rt.callTool(harness.found('modern:crash'), { code: 4 })).rejects.toThrow(/exited with code 4/);
    const restarted = await harness.events.waitFor('mcp.server.restarted');
    await waitUntil(() => rt.lookup('modern:echo').kind === 'found', 5000, 'online again');
    expect(textOf(await rt.callTool(harness.found('modern:echo'), { text: 'back' }))).toBe('back');
    expect(snapshotOf(rt, 'modern')).toMatchObject({
      protocol_version: '2026-07-28',
      process_id: restarted.new_process_id,
    });
  });

  it('serves a 2026-07-28-only Streamable HTTP server statelessly, and notices when it goes away and comes back', async () => {
    const { rt, port } = await harness.startRemote('modern', (at) => httpServer('modern', at));
    expect(snapshotOf(rt, 'modern')).toMatchObject({ status: 'online', protocol_version: '2026-07-28' });
    expect(textOf(await rt.callTool(harness.found('modern:echo'), { text: 'over http' }))).toBe('over http');

    await harness.stopFixture();
    await rt.checkHealth();
    expect(snapshotOf(rt, 'modern')?.status).toBe('offline');
    await harness.serve('modern', port);
    await harness.events.waitFor('mcp.server.status_changed', (d) => d.status === 'online' && d.reason === 'recovery');
    const pid = Number(textOf(await rt.callTool(harness.found('modern:server_pid'), {})));
    expect(pid).toBe(harness.fixtures[0]?.pid);
  });

  it('keeps legacy Streamable HTTP and SSE servers on their 2025 revision, probing an HTTP server only once', async () => {
    const httpPort = await harness.serve('http');
    const ssePort = await harness.serve('sse');
    const rt = harness.start([httpServer('http', httpPort), sseServer('sse', ssePort)]);
    await rt.start();
    expect(snapshotOf(rt, 'http')).toMatchObject({ status: 'online', protocol_version: '2025-11-25' });
    expect(snapshotOf(rt, 'sse')).toMatchObject({ status: 'online', protocol_version: '2025-11-25' });
    expect(textOf(await rt.callTool(harness.found('sse:greet'), { name: 'ada' }))).toBe('hello ada');
    expect(textOf(await rt.callTool(harness.found('http:probe_count'), {}))).toBe('1');

    // A new process behind the same URL: the reconnection goes straight to initialize.
    await harness.stopFixture('first');
    await rt.checkHealth();
    await harness.serve('http', httpPort);
    await harness.events.waitFor(
      'mcp.server.status_changed',
      (d) => d.installation_name === 'http' && d.status === 'online' && d.reason === 'recovery',
    );
    expect(textOf(await rt.callTool(harness.found('http:probe_count'), {}))).toBe('0');
  });
});
