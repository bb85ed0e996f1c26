import { randomUUID } from 'node:crypto';
import { publishEvent } from '@orbital/bus';
import { type SatelliteEventData, type SatelliteEventType, satelliteEvents } from '@orbital/contracts';
import type { LiveStreams } from '@orbital/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse } from './sseClient.ts';
import { type StreamTestStack, startStreamTestStack, waitUntil } from './streamTestStack.ts';

let streams: StreamTestStack;
let live: LiveStreams;
let base: string;
let teamA = '';
let installationId = '';
const satelliteId = randomUUID();

const call: StreamTestStack['call'] = (...args) => streams.call(...args);

async function emit<T extends SatelliteEventType>(type: T, data: SatelliteEventData<T>): Promise<string> {
  const id = randomUUID();
  const bus = streams.stack.gateways[0]?.bus;
  if (!bus) throw new Error('no bus');
  await publishEvent(
    bus,
    satelliteEvents[type as SatelliteEventType],
    { id, type, timestamp: new Date().toISOString(), data } as never,
    {
      tokens: { satellite_id: satelliteId },
      msgId: id,
    },
  );
  return id;
}

const logLine = (message: string, level: 'info' | 'error' = 'info') => ({
  log_level: level,
  message,
  timestamp: new Date().toISOString(),
});
const emitLogs = (...lines: ReturnType<typeof logLine>[]) =>
  emit('mcp.server.logs', { installation_id: installationId, team_id: teamA, server_slug: 'filesystem', lines });
const cookieOf: StreamTestStack['cookieOf'] = (who) => streams.cookieOf(who);
const path = () => `/api/teams/${teamA}/mcp/installations/${installationId}`;

beforeAll(async () => {
  // The registry in the stack created the satellite events stream at start.
  streams = await startStreamTestStack();
  ({ live, base, teamA } = streams);
  const template = { slug: 'filesystem', name: 'Filesystem', transport: 'stdio', command: 'npx', args: ['fs'] };
  expect((await call('POST', '/api/mcp/servers', 'teamAdmin', template)).status).toBe(403);
  expect((await call('POST', '/api/mcp/servers', null, template)).status).toBe(401);
  expect((await call('POST', '/api/mcp/servers', 'admin', template)).status).toBe(201);
  const body = { server_slug: 'filesystem', name: 'fs', env: { TOKEN: 'abc' } };
  expect((await call('POST', `/api/teams/${teamA}/mcp/installations`, 'teamUser', body)).status).toBe(403);
  const created = await call('POST', `/api/teams/${teamA}/mcp/installations`, 'teamAdmin', body);
  expect(created.status).toBe(201);
  installationId = created.body.data.id;
});

afterAll(async () => {
  await streams?.stop();
});

describe('REST endpoints over HTTP', () => {
  it('pages logs with limit/offset and refuses other teams and bad queries', async () => {
    await emitLogs(logLine('a'), logLine('b', 'error'), logLine('c'), logLine('d', 'error'), logLine('e'));
    let page = await call('GET', `${path()}/logs?limit=2&offset=1`, 'teamUser');
    for (let i = 0; i < 200 && page.body.data?.total !== 5; i++) {
      await new Promise((r) => setTimeout(r, 25));
      page = await call('GET', `${path()}/logs?limit=2&offset=1`, 'teamUser');
    }
    expect(page.body.data).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(page.body.data.items.map((l: { message: string }) => l.message)).toEqual(['d', 'c']);
    const errors = await call('GET', `${path()}/logs?level=error`, 'teamUser');
    expect(errors.body.data.items.map((l: { message: string }) => l.message)).toEqual(['d', 'b']);
    expect((await call('GET', `${path()}/logs?limit=0`, 'teamUser')).status).toBe(400);
    expect((await call('GET', `${path()}/logs`, 'otherTeam')).status).toBe(403);
    expect((await call('GET', `${path()}/logs`, null)).status).toBe(401);
    expect((await call('GET', `${path()}/status`, 'teamUser')).body.data).toMatchObject({
      status: 'provisioning',
      available: false,
    });
    expect((await call('PATCH', `${path()}/settings`, 'teamUser', { request_logging_enabled: true })).status).toBe(403);
    expect((await call('PATCH', `${path()}/settings`, 'teamAdmin', { nope: 1 })).status).toBe(400);
  });
});

describe('streams', () => {
  it('refuses callers without access with the usual JSON error, not a stream', async () => {
    const anonymous = await openSse(`${base}${path()}/logs/stream`, {});
    expect(anonymous.status).toBe(401);
    const other = await openSse(`${base}${path()}/logs/stream`, cookieOf('otherTeam'));
    expect(other.status).toBe(403);
    const missing = await openSse(
      `${base}/api/teams/${teamA}/mcp/installations/${randomUUID()}/logs/stream`,
      cookieOf('teamUser'),
    );
    expect(missing.status).toBe(404);
  });

  it('sends the snapshot first, then a new log line as an update', async () => {
    const client = await openSse(`${base}${path()}/logs/stream?limit=3`, cookieOf('teamUser'));
    expect(client.status).toBe(200);
    const [snapshot] = await client.waitForCount(1);
    expect(snapshot?.event).toBe('snapshot');
    const rest = await call('GET', `${path()}/logs?limit=3`, 'teamUser');
    // The same data as the REST twin with the same query.
    expect(JSON.parse(snapshot?.data ?? '')).toEqual(rest.body.data);
    expect(client.retryMs()).toBe(1500);

    await emitLogs(logLine('live line'));
    const events = await client.waitForCount(2);
    expect(events[1]?.event).toBe('update');
    expect(JSON.parse(events[1]?.data ?? '').items.map((l: { message: string }) => l.message)).toEqual(['live line']);
    expect(Number(events[1]?.id)).toBeGreaterThan(Number(snapshot?.id));
    client.close();
  });

  it('applies the query filter to live lines as the REST twin does', async () => {
    const client = await openSse(`${base}${path()}/logs/stream?level=error`, cookieOf('teamUser'));
    await client.waitForCount(1);
    await emitLogs(logLine('quiet info'));
    await emitLogs(logLine('loud error', 'error'));
    const events = await client.waitForCount(2);
    expect(events).toHaveLength(2);
    expect(JSON.parse(events[1]?.data ?? '').items.map((l: { message: string }) => l.message)).toEqual(['loud error']);
    client.close();
  });

  it('replays what was missed after Last-Event-ID, and nothing twice', async () => {
    const first = await openSse(`${base}${path()}/logs/stream`, cookieOf('teamUser'));
    await first.waitForCount(1);
    await emitLogs(logLine('seen 1'));
    await first.waitForCount(2);
    const lastSeen = first.lastEventId();
    first.close();

    await emitLogs(logLine('missed 1'));
    await emitLogs(logLine('missed 2'), logLine('missed 3'));
    const second = await openSse(`${base}${path()}/logs/stream`, {
      ...cookieOf('teamUser'),
      'last-event-id': lastSeen,
    });
    await second.waitForCount(2);
    await emitLogs(logLine('after'));
    const events = await second.waitForCount(3);
    expect(events.map((e) => e.event)).toEqual(['update', 'update', 'update']);
    const messages = events.flatMap((e) => JSON.parse(e.data).items.map((l: { message: string }) => l.message));
    expect(messages).toEqual(['missed 1', 'missed 3', 'missed 2', 'after']);
    const ids = events.map((e) => Number(e.id));
    expect(ids.every((id, i) => id > Number(lastSeen) && (i === 0 || id > (ids[i - 1] ?? 0)))).toBe(true);
    second.close();
  });

  it('sends a fresh snapshot when Last-Event-ID is not a replayable position', async () => {
    const client = await openSse(`${base}${path()}/logs/stream`, {
      ...cookieOf('teamUser'),
      'last-event-id': '999999999',
    });
    const [first] = await client.waitForCount(1);
    expect(first?.event).toBe('snapshot');
    client.close();
  });

  it('leaves no stream and no feed behind when clients disconnect, even mid-start', async () => {
    await waitUntil(() => live.size() === 0 && live.feeds() === 0);
    const client = await openSse(`${base}${path()}/logs/stream`, cookieOf('teamUser'));
    await client.waitForCount(1);
    expect(live.size()).toBe(1);
    await waitUntil(() => live.feeds() === 1);
    client.close();
    await waitUntil(() => live.size() === 0 && live.feeds() === 0);
    // Clients that leave while their snapshot is still being read.
    const quick = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const controller = new AbortController();
        const pending = fetch(`${base}${path()}/requests/stream`, {
          headers: cookieOf('teamUser'),
          signal: controller.signal,
        });
        controller.abort();
        await pending.catch(() => undefined);
      }),
    );
    expect(quick).toHaveLength(5);
    await emitLogs(logLine('nobody listens'));
    await waitUntil(() => live.size() === 0 && live.feeds() === 0);
  });

  it('sends keep-alive comments on an idle stream', async () => {
    const client = await openSse(`${base}${path()}/status/stream`, cookieOf('teamUser'));
    await client.waitForText(': keep-alive');
    client.close();
  });

  it('streams tool executions with tool_response only while request logging is on', async () => {
    const client = await openSse(`${base}${path()}/requests/stream`, cookieOf('teamUser'));
    const [snapshot] = await client.waitForCount(1);
    expect(JSON.parse(snapshot?.data ?? '')).toMatchObject({ items: [], request_logging_enabled: false });
    const executed = (tool: string) =>
      emit('mcp.tool.executed', {
        installation_id: installationId,
        team_id: teamA,
        server_slug: 'filesystem',
        tool_name: tool,
        session_id: null,
        request_params: { q: 1 },
        tool_response: { content: [{ type: 'text', text: 'out' }] },
        duration_ms: 3,
        success: true,
        error_message: null,
        executed_at: new Date().toISOString(),
      });
    await executed('off_tool');
    const [, off] = await client.waitForCount(2);
    expect(JSON.parse(off?.data ?? '').items[0]).toMatchObject({
      tool_name: 'off_tool',
      duration_ms: 3,
      success: true,
    });
    expect(JSON.parse(off?.data ?? '').items[0]).not.toHaveProperty('tool_response');
    client.close();

    expect((await call('PATCH', `${path()}/settings`, 'teamAdmin', { request_logging_enabled: true })).status).toBe(
      200,
    );
    const on = await openSse(`${base}${path()}/requests/stream`, cookieOf('teamUser'));
    await on.waitForCount(1);
    await executed('on_tool');
    const [, update] = await on.waitForCount(2);
    expect(JSON.parse(update?.data ?? '').items[0]).toMatchObject({
      tool_name: 'on_tool',
      tool_response: { content: [{ type: 'text', text: 'out' }] },
    });
    on.close();
    const list = await call('GET', `${path()}/requests`, 'teamUser');
    expect(
      list.body.data.items.map((r: { tool_name: string; tool_response?: unknown }) => [
        r.tool_name,
        r.tool_response !== undefined,
      ]),
    ).toEqual([
      ['on_tool', true],
      ['off_tool', false],
    ]);
  });

  it('streams status changes driven by satellite events', async () => {
    const client = await openSse(`${base}${path()}/status/stream`, cookieOf('teamUser'));
    const [snapshot] = await client.waitForCount(1);
    expect(JSON.parse(snapshot?.data ?? '')).toMatchObject({ installation_id: installationId });
    const serverRef = { server_id: installationId, server_slug: 'fs', installation_name: 'fs', team_id: teamA };
    await emit('mcp.server.started', {
      ...serverRef,
      process_id: 1,
      transport: 'stdio',
      tool_count: 0,
      spawn_duration_ms: 5,
    });
    await emit('mcp.tools.discovered', {
      installation_id: installationId,
      installation_name: 'fs',
      team_id: teamA,
      server_slug: 'filesystem',
      tool_count: 0,
      total_tokens: 0,
      tools: [],
      discovered_at: new Date().toISOString(),
    });
    const events = await client.waitForCount(3);
    expect(events.slice(1).map((e) => [e.event, JSON.parse(e.data).status, JSON.parse(e.data).available])).toEqual([
      ['update', 'discovering_tools', false],
      ['update', 'online', true],
    ]);
    client.close();
  });
});
