import { describe, expect, it } from 'vitest';
import { createRuntimeHarness } from './createRuntimeHarness.ts';
import { groupMembers, httpServer, pidAlive, sseServer, stdioServer, textOf, waitUntil } from './helpers.ts';

const harness = createRuntimeHarness();
const { fixtures } = harness;

describe('stdio servers', () => {
  it('starts a server with only its configured environment and discovers its tools', async () => {
    process.env.SATELLITE_TEST_SECRET = 'must-not-leak';
    const rt = harness.start([stdioServer('fx')]);
    await rt.start();
    const started = await harness.events.waitFor('mcp.server.started');
    expect(started).toMatchObject({
      server_id: 'inst-fx',
      installation_name: 'fx',
      team_id: 'team-alpha',
      transport: 'stdio',
    });
    expect(started.process_id).toBeGreaterThan(0);
    const discovered = await harness.events.waitFor('mcp.tools.discovered');
    expect(discovered.tools.map((t) => t.tool_name)).toEqual(
      expect.arrayContaining(['echo', 'crash', 'add_tool', 'whoami']),
    );
    expect(discovered.total_tokens).toBe(discovered.tools.reduce((s, t) => s + t.token_count, 0));
    expect(rt.snapshot()[0]).toMatchObject({ status: 'online', state: 'running', health: 'healthy' });

    const who = JSON.parse(textOf(await rt.callTool(harness.found('fx:whoami'), {}))) as {
      env: Record<string, string>;
    };
    expect(Object.keys(who.env).sort()).toEqual(['FIXTURE_GIVEN', 'HOME', 'PATH']);
    expect(who.env.FIXTURE_GIVEN).toBe('from-config');
    delete process.env.SATELLITE_TEST_SECRET;
  });

  it('restarts a crashing server three times, then marks it permanently failed', async () => {
    const rt = harness.start([stdioServer('crashy')]);
    await rt.start();
    const crash = () => rt.callTool(harness.found('crashy:crash'), { code: 7 });
    for (const attempt of [1, 2, 3]) {
      await expect(crash()).rejects.toThrow();
      const crashed = await harness.events.waitFor('mcp.server.crashed', (d) => d.crash_count === attempt);
      expect(crashed).toMatchObject({ exit_code: 7, signal: null, will_restart: true });
      const restarted = await harness.events.waitFor('mcp.server.restarted', (d) => d.attempt_number === attempt);
      expect(restarted.restart_reason).toBe('crash');
      expect(restarted.new_process_id).not.toBe(restarted.old_process_id);
      await waitUntil(() => rt.lookup('crashy:crash').kind === 'found', 5000, 'online again');
    }
    await expect(crash()).rejects.toThrow();
    const last = await harness.events.waitFor('mcp.server.crashed', (d) => d.crash_count === 4);
    expect(last.will_restart).toBe(false);
    const failed = await harness.events.waitFor('mcp.server.permanently_failed');
    expect(failed.total_crashes).toBe(4);
    expect(failed.last_error).toContain('code 7');
    expect(rt.lookup('crashy:echo')).toMatchObject({ kind: 'unavailable', status: 'permanently_failed' });
    expect(harness.events.ofType('mcp.server.restarted')).toHaveLength(3);
    // stderr reached the log events, batched.
    const logs = await harness.events.waitFor('mcp.server.logs', (d) =>
      d.lines.some((l) => l.message.includes('crashing')),
    );
    expect(logs.lines.find((l) => l.message.includes('crashing'))?.log_level).toBe('error');
  });

  it('goes dormant when idle and ten concurrent calls share one respawn', async () => {
    let clock = Date.now();
    const rt = harness.start([stdioServer('sleepy')], { stdio: { idleTimeoutMs: 60000 } }, () => clock);
    await rt.start();
    const firstPid = rt.snapshot()[0]?.process_id as number;
    expect(rt.checkIdle()).toBe(0);
    clock += 60001;
    expect(rt.checkIdle()).toBe(1);
    const dormant = await harness.events.waitFor('mcp.server.dormant');
    expect(dormant).toMatchObject({ process_id: firstPid, idle_duration_seconds: 60.001 });
    await waitUntil(() => !pidAlive(firstPid), 5000, 'dormant process gone');
    expect(rt.snapshot()[0]).toMatchObject({ state: 'dormant', status: 'online', process_id: null });

    clock += 5000;
    const tool = harness.found('sleepy:echo');
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => rt.callTool(tool, { text: `call ${i}` })));
    expect(results.map(textOf)).toEqual(Array.from({ length: 10 }, (_, i) => `call ${i}`));
    const respawned = harness.events.ofType('mcp.server.respawned');
    expect(respawned).toHaveLength(1);
    expect(respawned[0]?.dormant_duration_seconds).toBe(5);
    expect(harness.events.ofType('mcp.server.started')).toHaveLength(1);
    expect(respawned[0]?.process_id).not.toBe(firstPid);
  });

  it('does not put a server to sleep while a call is in flight', async () => {
    let clock = Date.now();
    const rt = harness.start([stdioServer('busy')], { stdio: { idleTimeoutMs: 1000 } }, () => clock);
    await rt.start();
    const call = rt.callTool(harness.found('busy:echo'), { text: 'x' });
    clock += 5000;
    expect(rt.checkIdle()).toBe(0);
    await call;
  });

  it('shows tools a server adds after announcing the change', async () => {
    const rt = harness.start([stdioServer('grow')]);
    await rt.start();
    expect(rt.lookup('grow:fresh_tool').kind).toBe('unknown');
    await rt.callTool(harness.found('grow:add_tool'), { name: 'fresh_tool' });
    const updated = await harness.events.waitFor('mcp.tools.updated');
    expect(updated).toMatchObject({ added_tools: ['fresh_tool'], removed_tools: [], installation_name: 'grow' });
    expect(textOf(await rt.callTool(harness.found('grow:fresh_tool'), {}))).toBe('fresh_tool ran');
    expect(rt.onlineTools().some((t) => t.tool_path === 'grow:fresh_tool')).toBe(true);
  });

  it('refuses an internal name two tools share instead of guessing', async () => {
    const rt = harness.start([stdioServer('fx'), stdioServer('fx-add')]);
    await rt.start();
    // fx:add-tool and fx-add:tool both become fx-add-tool.
    await rt.callTool(harness.found('fx:add_tool'), { name: 'add-tool' });
    await rt.callTool(harness.found('fx-add:add_tool'), { name: 'tool' });
    await harness.events.waitFor('mcp.tools.updated', (d) => d.installation_name === 'fx');
    await harness.events.waitFor('mcp.tools.updated', (d) => d.installation_name === 'fx-add');
    for (const path of ['fx:add-tool', 'fx-add:tool']) {
      expect(rt.lookup(path)).toEqual({ kind: 'ambiguous', tool_paths: ['fx:add-tool', 'fx-add:tool'] });
    }
    expect(rt.lookup('fx:echo').kind).toBe('found');
  });

  it('stops the whole process group, grandchildren included', async () => {
    const rt = harness.start([stdioServer('family')]);
    await rt.start();
    const pgid = rt.snapshot()[0]?.process_id as number;
    const grandchild = Number(textOf(await rt.callTool(harness.found('family:spawn_grandchild'), {})));
    expect(groupMembers(pgid)).toEqual(expect.arrayContaining([pgid, grandchild]));
    await rt.stop();
    await waitUntil(() => groupMembers(pgid).length === 0, 5000, 'process group gone');
  });
});

// What a remote server does when it goes away and comes back is the same over both transports.
const remoteTransports = [
  { transport: 'Streamable HTTP', kind: 'http', server: httpServer },
  { transport: 'SSE', kind: 'sse', server: sseServer },
] as const;

describe.each(remoteTransports)('remote servers over $transport, lost and found', ({ kind, server }) => {
  it('reconnects a server that goes away and comes back', async () => {
    const { rt, port } = await harness.startRemote(kind, (at) => server('remote', at));
    expect(textOf(await rt.callTool(harness.found('remote:greet'), { name: 'ada' }))).toBe('hello ada');
    const firstPid = Number(textOf(await rt.callTool(harness.found('remote:server_pid'), {})));

    // Marked before the kill: the end of an SSE stream may report the loss before any health check.
    const mark = harness.events.events.length;
    await harness.stopFixture();
    await rt.checkHealth();
    await harness.events.waitFor('mcp.server.status_changed', (d) => d.status === 'offline', { after: mark });
    expect(rt.lookup('remote:greet')).toMatchObject({ kind: 'unavailable', status: 'offline' });

    await harness.serve(kind, port);
    await harness.events.waitFor('mcp.server.status_changed', (d) => d.status === 'online' && d.reason === 'recovery', {
      after: mark,
    });
    expect(textOf(await rt.callTool(harness.found('remote:greet'), { name: 'bob' }))).toBe('hello bob');
    const secondPid = Number(textOf(await rt.callTool(harness.found('remote:server_pid'), {})));
    expect(secondPid).toBe(fixtures[0]?.pid);
    expect(secondPid).not.toBe(firstPid);
  });

  it('recovers at once when a call reaches an offline server that answers again', async () => {
    const { rt, port } = await harness.startRemote(kind, (at) => server('lazy', at), {
      remote: { reconnectBaseMs: 600000, reconnectMaxMs: 600000 },
    });
    const tool = harness.found('lazy:greet');
    await harness.stopFixture();
    await rt.checkHealth();
    expect(rt.snapshot()[0]?.status).toBe('offline');
    await expect(rt.callTool(tool, { name: 'x' })).rejects.toThrow(/offline/);

    await harness.serve(kind, port);
    const mark = harness.events.events.length;
    expect(textOf(await rt.callTool(tool, { name: 'eve' }))).toBe('hello eve');
    expect(harness.events.events.slice(mark).find((e) => e.type === 'mcp.server.status_changed')?.data).toMatchObject({
      status: 'online',
      previous_status: 'offline',
      reason: 'recovery',
    });
    await harness.events.waitFor('mcp.tools.discovered', () => true, { after: mark });
  });

  it('sends the configured headers (the fixture refuses requests without them)', async () => {
    const { rt } = await harness.startRemote(kind, (at) => server('noheaders', at, { headers: {} }), {
      remote: { reconnectBaseMs: 600000 },
    });
    expect(rt.snapshot()[0]).toMatchObject({ status: 'offline', state: 'restarting' });
    expect(rt.lookup('noheaders:greet').kind).not.toBe('found');
  });
});

describe('remote servers over Streamable HTTP', () => {
  it('discovers the tools of a Streamable HTTP server', async () => {
    await harness.startRemote('http', (at) => httpServer('remote', at));
    const discovered = await harness.events.waitFor('mcp.tools.discovered');
    expect(discovered.tools.map((t) => t.tool_name).sort()).toEqual([
      'ask_city',
      'break_listing',
      'change_description',
      'greet',
      'huge_output',
      'probe_count',
      'server_pid',
    ]);
    expect(harness.found('remote:greet').transport).toBe('http');
  });

  it('leaves out configured headers the transport sets itself, stored before installations refused them', async () => {
    // Sent as configured, each of these would break the exchange: the server refuses a wrong content
    // type, accept or protocol version, and knows no such session.
    const forged = {
      'x-fixture-key': 'fixture',
      'content-type': 'text/plain',
      Accept: 'text/plain',
      'Mcp-Session-Id': 'forged-session',
      'MCP-Protocol-Version': '1999-01-01',
    };
    const { rt } = await harness.startRemote('http', (at) => httpServer('forged', at, { headers: forged }));
    expect(rt.snapshot()[0]).toMatchObject({ status: 'online' });
    expect(textOf(await rt.callTool(harness.found('forged:greet'), { name: 'Ada' }))).toContain('Ada');
  });
});

describe('remote servers over SSE', () => {
  it('discovers the tools of an SSE server and calls them with the configured headers', async () => {
    const { rt } = await harness.startRemote('sse', (at) => sseServer('legacy', at));
    const discovered = await harness.events.waitFor('mcp.tools.discovered');
    expect(discovered).toMatchObject({ server_slug: 'fixture-sse' });
    expect(discovered.tools.map((t) => t.tool_name).sort()).toEqual([
      'drop_calls',
      'drop_stream',
      'greet',
      'huge_output',
      'server_pid',
    ]);
    expect(rt.snapshot()[0]).toMatchObject({
      transport: 'sse',
      status: 'online',
      state: 'running',
      health: 'healthy',
    });
    expect(harness.found('legacy:greet').transport).toBe('sse');
    expect(textOf(await rt.callTool(harness.found('legacy:greet'), { name: 'ada' }))).toBe('hello ada');
    expect(Number(textOf(await rt.callTool(harness.found('legacy:server_pid'), {})))).toBe(fixtures[0]?.pid);
  });

  it('notices a stream that ends without waiting for a health check', async () => {
    // No health check runs (remoteHealthIntervalMs is 0): only the end of the stream can tell.
    await harness.startRemote('sse', (at) => sseServer('watched', at), {
      remote: { reconnectBaseMs: 600000, reconnectMaxMs: 600000 },
    });
    const mark = harness.events.events.length;
    await harness.stopFixture();
    const offline = await harness.events.waitFor('mcp.server.status_changed', (d) => d.status === 'offline', {
      after: mark,
    });
    expect(offline.previous_status).toBe('online');
  });

  it('fails a call whose stream drops after it reached the server, and never sends it again', async () => {
    const { rt } = await harness.startRemote('sse', (at) => sseServer('flaky', at));
    const mark = harness.events.events.length;
    await expect(rt.callTool(harness.found('flaky:drop_stream'), {})).rejects.toThrow(/closed/i);
    await harness.events.waitFor('mcp.server.status_changed', (d) => d.status === 'offline', { after: mark });
    await harness.events.waitFor('mcp.server.status_changed', (d) => d.status === 'online' && d.reason === 'recovery', {
      after: mark,
    });
    // The same process served both sessions: one run means the dropped call was not retried.
    expect(textOf(await rt.callTool(harness.found('flaky:drop_calls'), {}))).toBe('1');
  });
});
