import { describe, expect, it } from 'vitest';
import { createRuntimeHarness } from './createRuntimeHarness.ts';
import { httpServer, sseServer, stdioServer, textOf, waitUntil } from './helpers.ts';

const harness = createRuntimeHarness();

const MB = 1024 * 1024;
const pidOf = (rt: ReturnType<typeof harness.start>, name: string) =>
  rt.snapshot().find((s) => s.server_name === name)?.process_id;

describe('large messages from a stdio server', () => {
  it('passes a 12 MB result whole', async () => {
    const rt = harness.start([stdioServer('big')]);
    await rt.start();
    const result = await rt.callTool(harness.found('big:huge_output'), { bytes: 12 * MB });
    expect(result.isError).toBeUndefined();
    expect(textOf(result).length).toBe(12 * MB);
  });

  it('fails a 64 MB result with a tool error naming the limit; the process, its other calls and other servers carry on', async () => {
    const rt = harness.start([stdioServer('big'), stdioServer('bystander')]);
    await rt.start();
    const pid = pidOf(rt, 'big');
    const alongside = rt.callTool(harness.found('big:slow_task'), { steps: 5, delay_ms: 100 });
    const elsewhere = rt.callTool(harness.found('bystander:slow_task'), { steps: 5, delay_ms: 100 });
    const result = await rt.callTool(harness.found('big:huge_output'), { bytes: 64 * MB });
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: `Tool "huge_output" on MCP server "big" failed: the server's answer is ${((64 * MB + 55) / MB).toFixed(1)} MB, above the satellite's limit of 32.0 MB per message (MCP_MAX_MESSAGE_BYTES).`,
        },
      ],
      isError: true,
    });
    expect(textOf(await alongside)).toBe('done after 5 steps');
    expect(textOf(await elsewhere)).toBe('done after 5 steps');
    expect(textOf(await rt.callTool(harness.found('big:echo'), { text: 'still here' }))).toBe('still here');
    expect(pidOf(rt, 'big')).toBe(pid);
    expect(harness.events.ofType('mcp.server.crashed')).toEqual([]);
  });

  it('skips a huge line that is not JSON-RPC and keeps serving', async () => {
    const rt = harness.start([stdioServer('noisy')], { connection: { maxMessageBytes: MB } });
    await rt.start();
    const pid = pidOf(rt, 'noisy');
    expect(textOf(await rt.callTool(harness.found('noisy:stdout_garbage'), { bytes: 5 * MB }))).toBe('wrote garbage');
    expect(pidOf(rt, 'noisy')).toBe(pid);
  });

  it('restarts a server whose oversized answer matches no request, failing its calls clearly', async () => {
    const rt = harness.start([stdioServer('lost')], { connection: { maxMessageBytes: MB } });
    await rt.start();
    const pid = pidOf(rt, 'lost') as number;
    const waiting = rt.callTool(harness.found('lost:slow_task'), { steps: 1, delay_ms: 60_000 });
    const garbage = rt.callTool(harness.found('lost:stdout_garbage'), {
      bytes: 2 * MB,
      then_ms: 60_000,
      shape: 'answer_without_id',
    });
    const expected =
      /the MCP server process sent a message of 2\.0 MB, above the limit of 1\.0 MB \(MCP_MAX_MESSAGE_BYTES\), that could not be matched to a request during the call/;
    await expect(waiting).rejects.toThrow(expected);
    await expect(garbage).rejects.toThrow(expected);
    const crashed = await harness.events.waitFor('mcp.server.crashed');
    expect(crashed).toMatchObject({ process_id: pid, exit_code: null, signal: 'SIGKILL', will_restart: true });
    await harness.events.waitFor('mcp.server.restarted');
    await waitUntil(() => rt.lookup('lost:echo').kind === 'found', 5000, 'online again');
    expect(textOf(await rt.callTool(harness.found('lost:echo'), { text: 'again' }))).toBe('again');
  });
});

describe('large messages from a remote server', () => {
  it('passes 12 MB and refuses 64 MB with a tool error, over Streamable HTTP (2025 and 2026) and SSE, the connection kept', async () => {
    const legacyPort = await harness.serve('http');
    const modernPort = await harness.serve('modern');
    const ssePort = await harness.serve('sse');
    const rt = harness.start([
      httpServer('web', legacyPort),
      httpServer('modern', modernPort),
      sseServer('sse', ssePort),
    ]);
    await rt.start();
    for (const server of ['web', 'modern', 'sse']) {
      const passed = await rt.callTool(harness.found(`${server}:huge_output`), { bytes: 12 * MB });
      expect(textOf(passed).length, server).toBe(12 * MB);
      const refused = await rt.callTool(harness.found(`${server}:huge_output`), { bytes: 64 * MB });
      expect(refused.isError, server).toBe(true);
      expect(textOf(refused), server).toMatch(
        new RegExp(
          `^Tool "huge_output" on MCP server "${server}" failed: the server's answer is ${server === 'modern' ? 'more than 32\\.0' : '64\\.0'} MB, above the satellite's limit of 32\\.0 MB per message \\(MCP_MAX_MESSAGE_BYTES\\)\\.$`,
        ),
      );
      expect(rt.snapshot().find((s) => s.server_name === server)?.status, server).toBe('online');
      expect(textOf(await rt.callTool(harness.found(`${server}:huge_output`), { bytes: 3 })), server).toBe('xxx');
    }
  });
});

describe('errors an agent and an operator can act on', () => {
  it('names a crash during a call with its exit code, and the crashed event carries the real pid and code', async () => {
    const rt = harness.start([stdioServer('fragile')]);
    await rt.start();
    const pid = pidOf(rt, 'fragile');
    await expect(rt.callTool(harness.found('fragile:crash'), { code: 7, delay_ms: 50 })).rejects.toThrow(
      /^the MCP server process exited with code 7 during the call \(stderr: .*crashing on command with code 7\)$/,
    );
    expect(await harness.events.waitFor('mcp.server.crashed')).toMatchObject({
      process_id: pid,
      exit_code: 7,
      signal: null,
      crash_count: 1,
      will_restart: true,
    });
  });

  it('says why a server that cannot start is not online: restarting, then permanently failed, with the spawn error', async () => {
    const rt = harness.start([stdioServer('ghost', { command: '/nonexistent/mcp-server' })], {
      stdio: { restartBackoffMs: 200 },
    });
    void rt.start();
    await harness.events.waitFor('mcp.server.crashed');
    const restarting = rt.lookup('ghost:anything');
    expect(restarting).toMatchObject({ kind: 'unavailable', server_name: 'ghost', status: 'restarting' });
    expect(restarting.kind === 'unavailable' && restarting.reason).toMatch(
      /^restarting \(attempt 1 of 3\) after: failed to start: spawn \/nonexistent\/mcp-server ENOENT$/,
    );
    await harness.events.waitFor('mcp.server.permanently_failed');
    expect(rt.lookup('ghost:anything')).toEqual({
      kind: 'unavailable',
      server_name: 'ghost',
      status: 'permanently_failed',
      reason: 'permanently failed after 3 restarts: failed to start: spawn /nonexistent/mcp-server ENOENT',
    });
    expect(rt.snapshot()[0]?.status_reason).toBe(
      'permanently failed after 3 restarts: failed to start: spawn /nonexistent/mcp-server ENOENT',
    );
  });

  it('reports a process that exits during the handshake with its pid and exit code', async () => {
    const rt = harness.start([
      stdioServer('quitter', { args: ['-e', 'process.stderr.write("missing API_KEY\\n"); process.exit(5)'] }),
    ]);
    void rt.start();
    const crashed = await harness.events.waitFor('mcp.server.crashed');
    expect(crashed.exit_code).toBe(5);
    expect(crashed.process_id).toBeGreaterThan(0);
    await harness.events.waitFor('mcp.server.permanently_failed');
    const lookup = rt.lookup('quitter:x');
    expect(lookup.kind === 'unavailable' && lookup.reason).toBe(
      'permanently failed after 3 restarts: exited during the MCP handshake with code 5 (stderr: missing API_KEY)',
    );
  });

  it('brings a remote server that has just come back online for the call that finds it offline', async () => {
    const { rt, port } = await harness.startRemote('http', (at) => httpServer('remote', at), {
      remote: { reconnectBaseMs: 600_000, reconnectMaxMs: 600_000 },
    });
    await harness.stopFixture();
    await rt.checkHealth();
    const refused = await rt.resolve('remote:greet');
    expect(refused).toMatchObject({ kind: 'unavailable', status: 'offline' });
    expect(refused.kind === 'unavailable' && refused.reason).toMatch(/^connection lost: /);

    await harness.serve('http', port);
    const back = await rt.resolve('remote:greet');
    expect(back.kind).toBe('found');
    if (back.kind === 'found') expect(textOf(await rt.callTool(back.tool, { name: 'eve' }))).toBe('hello eve');
  });

  it('retries a call to an SSE server restarted between two calls instead of failing it', async () => {
    const { rt, port } = await harness.startRemote('sse', (at) => sseServer('legacy', at), {
      remote: { reconnectBaseMs: 600_000, reconnectMaxMs: 600_000 },
    });
    const tool = harness.found('legacy:server_pid');
    const first = Number(textOf(await rt.callTool(tool, {})));
    await harness.stopFixture();
    await harness.serve('sse', port);
    const second = Number(textOf(await rt.callTool(tool, {})));
    expect(second).toBe(harness.fixtures[0]?.pid);
    expect(second).not.toBe(first);
  });
});
