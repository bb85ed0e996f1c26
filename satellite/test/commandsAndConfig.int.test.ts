import { type HeartbeatBody, heartbeatBody } from '@orbital/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCommandExecutor } from '../src/backend/createCommandExecutor.ts';
import { createCommandPoller } from '../src/backend/createCommandPoller.ts';
import { configurationHash, createConfigSync } from '../src/backend/createConfigSync.ts';
import { createHeartbeat } from '../src/backend/createHeartbeat.ts';
import { createLinkHealth, createMetricsCollector } from '../src/backend/createMetricsCollector.ts';
import { validateCredentials } from '../src/backend/validateCredentials.ts';
import { createRecordingEventSink } from '../src/events/createRecordingEventSink.ts';
import { createServerRuntime, type ServerRuntime } from '../src/runtime/createServerRuntime.ts';
import { createManualScheduler, type ManualScheduler } from './createManualScheduler.ts';
import { errorReply, type ScriptedBackend, startScriptedBackend } from './createScriptedBackend.ts';
import { silentLogger, stdioServer, testSettings, waitUntil } from './helpers.ts';
import { createLinkParts } from './linkFixture.ts';

let backend: ScriptedBackend;
let scheduler: ManualScheduler;
let runtime: ServerRuntime;
const events = createRecordingEventSink();
let served: { servers: unknown[] } = { servers: [] };

beforeEach(async () => {
  backend = await startScriptedBackend();
  scheduler = createManualScheduler();
  runtime = createServerRuntime({ servers: [], events, logger: silentLogger, settings: testSettings });
  await runtime.start();
});
afterEach(async () => {
  await runtime.stop();
  await backend.close();
});

async function build() {
  const parts = await createLinkParts({ backendUrl: backend.url, scheduler, logger: silentLogger });
  await parts.identity.ensure();
  const configSync = createConfigSync({
    api: parts.api,
    runtime,
    events,
    logger: silentLogger,
    scheduler,
    intervalMs: 300000,
  });
  const executor = createCommandExecutor({ api: parts.api, runtime, configSync, events, logger: silentLogger });
  const poller = createCommandPoller({
    api: parts.api,
    executor,
    scheduler,
    logger: silentLogger,
    onSettingsChanged: () => configSync.sync('settings'),
  });
  return { ...parts, configSync, executor, poller };
}

const command = (id: string, type: string, payload: Record<string, unknown>) => ({
  id,
  command_type: type,
  priority: 'immediate',
  payload: { team_id: 'team-alpha', ...payload },
  correlation_id: null,
  created_at: new Date().toISOString(),
  expires_at: null,
});

/**
 * Backend with no servers: each poll is answered with the next of `answers` (then none) over a slow-mode
 * answer with `base`, so a test scripts what the gateway says about settings and long polling.
 */
function answerPolls(answers: Array<Record<string, unknown>>, base: Record<string, unknown> = {}) {
  served = { servers: [] };
  backend.respond((request) => {
    if (request.path.endsWith('/config')) return { status: 200, body: { success: true, data: served } };
    if (!request.path.endsWith('/commands')) return errorReply(404, 'not_found');
    const data = { commands: [], polling: { mode: 'slow', next_poll_ms: 60000 }, ...base, ...(answers.shift() ?? {}) };
    return { status: 200, body: { success: true, data } };
  });
}

/** Backend: config from `served`, commands from `queue` (each poll takes them all), results recorded. */
function scriptBackend(queue: unknown[][]) {
  backend.respond((request) => {
    if (request.path.endsWith('/config')) return { status: 200, body: { success: true, data: served } };
    if (request.path.endsWith('/commands')) {
      return {
        status: 200,
        body: {
          success: true,
          data: { commands: queue.shift() ?? [], polling: { mode: 'immediate', next_poll_ms: 2000 } },
        },
      };
    }
    if (request.path.endsWith('/command-results')) {
      return { status: 200, body: { success: true, data: { command_id: 'x', status: 'x', changed: true } } };
    }
    return errorReply(404, 'not_found');
  });
}

const results = () =>
  backend.requests
    .filter((r) => r.path.endsWith('/command-results'))
    .map(
      (r) => r.body as { command_id: string; status: string; error_message?: string; result?: Record<string, unknown> },
    );

describe('configuration sync', () => {
  it('applies the difference: starts new, stops removed, restarts changed, leaves the rest running', async () => {
    scriptBackend([]);
    const link = await build();
    const keep = stdioServer('keep');
    const change = stdioServer('change');
    const drop = stdioServer('drop');
    served = { servers: [keep, change, drop] };
    const first = await link.configSync.sync('test');
    expect(first.started.sort()).toEqual(['inst-change', 'inst-drop', 'inst-keep']);
    expect(first.config_hash).toBe(configurationHash(runtime.configurations()));
    expect(first.config_hash).toMatch(/^[0-9a-f]{12}$/);
    const pid = (id: string) => runtime.server(id)?.snapshot().process_id;
    // Applying starts servers without waiting for them: the sync returns while they come up.
    const online = (...ids: string[]) =>
      waitUntil(() => ids.every((id) => runtime.server(id)?.status() === 'online'), 10000, `${ids} online`);
    await online('inst-keep', 'inst-change', 'inst-drop');
    const keepPid = pid('inst-keep');
    const changePid = pid('inst-change');
    expect(keepPid).toBeGreaterThan(0);

    const added = stdioServer('added');
    // The same configuration with keys in another order hashes the same.
    served = {
      servers: [
        Object.fromEntries(Object.entries(keep).reverse()),
        { ...change, env: { FIXTURE_GIVEN: 'changed' } },
        added,
      ],
    };
    const second = await link.configSync.sync('test');
    expect(second).toMatchObject({
      change_detected: true,
      started: ['inst-added'],
      stopped: ['inst-drop'],
      restarted: ['inst-change'],
      unchanged: ['inst-keep'],
    });
    await online('inst-added', 'inst-change');
    expect(pid('inst-keep')).toBe(keepPid);
    expect(pid('inst-change')).not.toBe(changePid);
    expect(runtime.server('inst-drop')).toBeUndefined();

    const third = await link.configSync.sync('test');
    expect(third.change_detected).toBe(false);
    const refreshed = events.ofType('config.refreshed').at(-1);
    expect(refreshed).toMatchObject({
      config_hash: third.config_hash,
      server_count: 3,
      teams_count: 1,
      change_detected: false,
    });
  });

  it('reports a failed fetch as config.error with when it retries, and keeps the running servers', async () => {
    backend.respond(() => errorReply(503, 'unavailable'));
    const link = await build();
    await expect(link.configSync.sync('test')).rejects.toThrow(/503/);
    await expect(link.configSync.sync('test')).rejects.toThrow(/503/);
    const errors = events.ofType('config.error').slice(-2);
    expect(errors).toEqual([
      expect.objectContaining({ error_type: 'server_error', status_code: 503, retry_in: 30 }),
      expect.objectContaining({ status_code: 503, retry_in: 60 }),
    ]);
  });
});

describe('commands', () => {
  it('runs each command once, reporting acknowledged, executing and completed; a re-delivery only re-reports', async () => {
    served = { servers: [stdioServer('one')] };
    const spawnOne = command('c-spawn', 'spawn', { installation_id: 'inst-one' });
    const killOne = command('c-kill', 'kill', { installation_id: 'inst-one' });
    scriptBackend([[spawnOne], [spawnOne, killOne], [killOne]]);
    const link = await build();
    await link.poller.poll();
    expect(runtime.server('inst-one')?.status()).toBe('online');
    const pid = runtime.server('inst-one')?.snapshot().process_id;
    await link.poller.poll();
    await link.poller.poll();
    expect(runtime.server('inst-one')).toBeUndefined();
    expect(results().map((r) => `${r.command_id}:${r.status}`)).toEqual([
      'c-spawn:acknowledged',
      'c-spawn:executing',
      'c-spawn:completed',
      // Second poll: the spawn again (its final result re-reported, not re-run) and the kill.
      'c-kill:acknowledged',
      'c-spawn:completed',
      'c-kill:executing',
      'c-kill:completed',
      'c-kill:completed',
    ]);
    expect(link.executor.stats().executed).toBe(2);
    expect(pid).toBeGreaterThan(0);
    expect(events.ofType('mcp.server.status_changed').at(-1)).toMatchObject({ status: 'offline', reason: 'process' });
  });

  it('fails a command for an installation of another team or one the configuration does not have', async () => {
    served = { servers: [stdioServer('mine')] };
    scriptBackend([
      [
        {
          ...command('c-other', 'restart', { installation_id: 'inst-mine' }),
          payload: { team_id: 'team-beta', installation_id: 'inst-mine' },
        },
        command('c-missing', 'spawn', { installation_id: 'inst-nowhere' }),
      ],
    ]);
    const link = await build();
    await link.poller.poll();
    const finals = results().filter((r) => r.status === 'failed');
    expect(finals.map((r) => r.command_id)).toEqual(['c-other', 'c-missing']);
    expect(finals[0]?.error_message).toContain('does not belong to team team-beta');
    expect(finals[1]?.error_message).toContain("not in this satellite's configuration");
  });

  it('polls at the backend interval, backs off from it up to 5 minutes on errors, and returns at once', async () => {
    backend.respond(() => errorReply(500, 'internal'));
    const link = await build();
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      await link.poller.poll();
      delays.push(link.poller.state().next_delay_ms);
    }
    expect(delays).toEqual([60000, 120000, 240000, 300000, 300000]);
    scriptBackend([]);
    await link.poller.poll();
    expect(link.poller.state()).toMatchObject({ mode: 'immediate', next_delay_ms: 2000, failures: 0 });
  });
});

describe('long polling', () => {
  it('asks the gateway to hold each poll, polls again at once after a held answer, and refetches the configuration when settings change', async () => {
    const answers = [
      { settings_changed_at: '2026-01-01T00:00:00.000Z', long_poll_ms: 25000 },
      { settings_changed_at: '2026-01-01T00:00:00.000Z', long_poll_ms: 25000 },
      { settings_changed_at: '2026-01-02T09:30:00.000Z', long_poll_ms: 25000 },
      {},
    ];
    answerPolls(answers);
    const link = await build();
    const configFetches = () => backend.requests.filter((r) => r.path.endsWith('/config')).length;

    await link.poller.poll();
    const polls = backend.requests.filter((r) => r.path.endsWith('/commands'));
    expect(polls[0]?.query.get('wait_ms')).toBe('25000');
    // Held answers pace the loop: the next poll goes out at once, not after the mode's 60 s.
    expect(link.poller.state()).toMatchObject({ long_poll: true, next_delay_ms: 0 });
    await link.poller.poll();
    // The first answer said where settings stand; an unchanged time fetches nothing.
    expect(configFetches()).toBe(0);
    await link.poller.poll();
    await vi.waitFor(() => expect(configFetches()).toBe(1));
    // A gateway that does not hold polls is polled at the interval it names.
    await link.poller.poll();
    expect(link.poller.state()).toMatchObject({ long_poll: false, next_delay_ms: 60000 });
  });

  it('notices the first settings change after a gateway that had seen none', async () => {
    const answers = [{ settings_changed_at: null }, { settings_changed_at: '2026-01-02T09:30:00.000Z' }];
    answerPolls(answers, { long_poll_ms: 25000 });
    const link = await build();
    const configFetches = () => backend.requests.filter((r) => r.path.endsWith('/config')).length;
    await link.poller.poll();
    expect(configFetches()).toBe(0);
    await link.poller.poll();
    await vi.waitFor(() => expect(configFetches()).toBe(1));
  });
});

describe('credential validation', () => {
  const remote = (url: string) => ({
    ...stdioServer('remote'),
    transport: 'http' as const,
    url: `${url}/mcp`,
    command: undefined,
  });

  it('classifies 401 as expired (revoked when the server says so), 403 as revoked, anything else as failed', async () => {
    backend.respond(() => ({ status: 401, body: {}, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } }));
    expect((await validateCredentials(remote(backend.url), undefined, { timeoutMs: 5000 })).outcome).toBe(
      'token_expired',
    );
    backend.respond(() => ({
      status: 401,
      body: {},
      headers: { 'www-authenticate': 'Bearer error="invalid_token", error_description="token revoked"' },
    }));
    expect((await validateCredentials(remote(backend.url), undefined, { timeoutMs: 5000 })).outcome).toBe(
      'token_revoked',
    );
    backend.respond(() => ({ status: 403, body: {} }));
    expect((await validateCredentials(remote(backend.url), undefined, { timeoutMs: 5000 })).outcome).toBe(
      'token_revoked',
    );
    backend.respond(() => ({ status: 500, body: {} }));
    expect((await validateCredentials(remote(backend.url), undefined, { timeoutMs: 5000 })).outcome).toBe('failed');
  });

  it('a health_check command emits mcp.server.status_changed with reason credential_validation', async () => {
    served = { servers: [stdioServer('checked')] };
    scriptBackend([
      [command('c-spawn2', 'spawn', { installation_id: 'inst-checked' })],
      [command('c-check', 'health_check', { installation_id: 'inst-checked', check_type: 'credential_validation' })],
    ]);
    const link = await build();
    await link.poller.poll();
    await link.poller.poll();
    const completed = results().find((r) => r.command_id === 'c-check' && r.status === 'completed');
    expect(completed?.result).toMatchObject({ outcome: 'valid', status: 'online' });
    expect(events.ofType('mcp.server.status_changed').at(-1)).toMatchObject({
      server_id: 'inst-checked',
      status: 'online',
      reason: 'credential_validation',
    });
  });
});

describe('heartbeat', () => {
  it('carries real metrics, and the satellite URL until one heartbeat is accepted, then never again', async () => {
    let n = 0;
    backend.respond(() =>
      n++ === 0
        ? errorReply(503, 'unavailable')
        : {
            status: 200,
            body: { success: true, data: { status: 'active', activated: n === 2, next_heartbeat_ms: 30000 } },
          },
    );
    const link = await build();
    const linkHealth = createLinkHealth();
    runtime = createServerRuntime({
      servers: [stdioServer('beat')],
      events,
      logger: silentLogger,
      settings: testSettings,
    });
    await runtime.start();
    const heartbeat = createHeartbeat({
      api: link.api,
      scheduler,
      logger: silentLogger,
      intervalMs: 30000,
      satelliteUrl: 'http://satellite.test:3001',
      collect: createMetricsCollector({
        diskPath: link.stateDir,
        snapshot: () => runtime.snapshot(),
        configuration: (id) => runtime.configuration(id),
        linkHealth,
      }),
    });
    heartbeat.start();
    for (let i = 0; i < 3; i++) await heartbeat.beat();
    const bodies = backend.requests.map((r) => r.body as HeartbeatBody);
    expect(bodies.map((b) => b.satellite_url ?? null)).toEqual([
      'http://satellite.test:3001',
      'http://satellite.test:3001',
      null,
    ]);
    const body = bodies[2] as HeartbeatBody;
    expect(heartbeatBody.safeParse(body).success).toBe(true);
    expect(body.system.memory.total_mb).toBeGreaterThan(0);
    expect(body.system.disk?.total_mb).toBeGreaterThan(0);
    expect(body.system.process_counts).toEqual({ total: 1, running: 1, failed: 0 });
    expect(body.processes[0]).toMatchObject({
      process_id: 'fixture-alpha-beat',
      installation_id: 'inst-beat',
      health: 'healthy',
    });
    expect(body.processes[0]?.memory_mb).toBeGreaterThan(0);
    // The heartbeat timer is the backend's next_heartbeat_ms.
    expect(scheduler.pending()).toContain(30000);
    heartbeat.stop();
  });
});
