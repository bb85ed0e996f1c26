import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { satelliteBody } from './satelliteHarness.ts';
import { openSse } from './sseClient.ts';
import { type StreamTestStack, startStreamTestStack, type Who, waitUntil } from './streamTestStack.ts';

let t: StreamTestStack;
type Satellite = { id: string; apiKey: string };
let satA: Satellite;
let satB: Satellite;
const path = '/api/users/me/mcp/client-activity';

async function register(teamId: string, name: string): Promise<Satellite> {
  const token = await t.call('POST', `/api/teams/${teamId}/satellites/registration-tokens`, 'admin', {});
  const registered = await t.call('POST', '/api/satellites/register', null, satelliteBody(name), {
    authorization: token.body.data.authorization,
  });
  expect(registered.status).toBe(201);
  return { id: registered.body.data.satellite_id, apiKey: registered.body.data.api_key };
}

/** Sends client events the way a satellite does: a batch to POST /api/satellites/:id/events. */
async function send(satellite: Satellite, ...events: Array<{ type: string; data: object }>) {
  const batch = events.map((e) => ({ id: randomUUID(), timestamp: new Date().toISOString(), ...e }));
  const response = await t.call(
    'POST',
    `/api/satellites/${satellite.id}/events`,
    null,
    { events: batch },
    {
      authorization: `Bearer ${satellite.apiKey}`,
    },
  );
  expect(response.status).toBe(200);
  expect(response.body.data.accepted).toBe(events.length);
}
const connected = (sessionId: string, teamId: string | null) => ({
  type: 'mcp.client.connected',
  data: {
    session_id: sessionId,
    client_type: 'vscode',
    user_agent: 'VS Code 1.99',
    client_name: 'Visual Studio Code',
    client_version: '1.99.0',
    team_id: teamId,
    transport: 'sse',
    ip_address: '10.0.0.9',
  },
});
const disconnected = (sessionId: string, teamId: string | null) => ({
  type: 'mcp.client.disconnected',
  data: {
    session_id: sessionId,
    team_id: teamId,
    connection_duration_seconds: 61,
    tool_execution_count: 4,
    disconnect_reason: 'client_close',
  },
});
const activity = (sessionId: string, teamId: string | null, count: number) => ({
  type: 'mcp.client.activity',
  data: {
    session_id: sessionId,
    team_id: teamId,
    tool_execution_count: count,
    last_activity_at: new Date().toISOString(),
  },
});
const sessionsOf = async (who: Who, query = '') =>
  (await t.call('GET', `${path}${query}`, who)).body.data.items as Array<{
    session_id: string;
    team_id: string;
    active: boolean;
    tool_execution_count: number | null;
  }>;

beforeAll(async () => {
  t = await startStreamTestStack();
  satA = await register(t.teamA, 'sat-a');
  satB = await register(t.teamB, 'sat-b');
});

afterAll(async () => {
  await t?.stop();
});

describe('GET /api/users/me/mcp/client-activity', () => {
  it("lists the sessions of the caller's teams only, newest first; a global admin sees all", async () => {
    await send(satA, connected('a-1', t.teamA));
    await send(satB, connected('b-1', t.teamB));
    // A team satellite speaks for its own team only: a session claimed for team A is refused.
    const claimed = await t.call(
      'POST',
      `/api/satellites/${satB.id}/events`,
      null,
      { events: [{ id: randomUUID(), timestamp: new Date().toISOString(), ...connected('b-x', t.teamA) }] },
      { authorization: `Bearer ${satB.apiKey}` },
    );
    expect(claimed.body.data).toMatchObject({ accepted: 0, rejected: 1 });
    await waitUntil(async () => (await sessionsOf('admin')).length === 2);
    expect((await sessionsOf('admin')).map((s) => [s.session_id, s.team_id])).toEqual([
      ['b-1', t.teamB],
      ['a-1', t.teamA],
    ]);
    expect((await sessionsOf('teamUser')).map((s) => s.session_id)).toEqual(['a-1']);
    expect((await sessionsOf('otherTeam')).map((s) => s.session_id)).toEqual(['b-1']);
    expect((await sessionsOf('admin', `?team_id=${t.teamB}`)).map((s) => s.session_id)).toEqual(['b-1']);
    expect((await sessionsOf('admin', '?limit=1')).map((s) => s.session_id)).toEqual(['b-1']);
    const first = (await t.call('GET', path, 'teamUser')).body.data.items[0];
    expect(first).toMatchObject({
      client_type: 'vscode',
      client_name: 'Visual Studio Code',
      client_version: '1.99.0',
      user_agent: 'VS Code 1.99',
      active: true,
    });
    expect(first).not.toHaveProperty('ip_address');
  });

  it("counts a live session's tool calls as its satellite reports them, and keeps the final count", async () => {
    await send(satA, connected('a-live', t.teamA), activity('a-live', t.teamA, 3));
    const live = async () => (await sessionsOf('teamUser')).find((s) => s.session_id === 'a-live');
    await waitUntil(async () => (await live())?.tool_execution_count === 3);
    expect(await live()).toMatchObject({ active: true, client_name: 'Visual Studio Code' });
    await send(satA, disconnected('a-live', t.teamA), activity('a-live', t.teamA, 2));
    await waitUntil(async () => (await live())?.active === false);
    // The final count (4) stays, whatever report arrives late.
    await waitUntil(async () => (await live())?.tool_execution_count === 4);
  });

  it('refuses another team, bad queries and anonymous callers', async () => {
    for (const suffix of ['', '/stream']) {
      expect((await t.call('GET', `${path}${suffix}?team_id=${t.teamB}`, 'teamUser')).status).toBe(403);
      expect((await t.call('GET', `${path}${suffix}?limit=0`, 'teamUser')).status).toBe(400);
      expect((await t.call('GET', `${path}${suffix}?nope=1`, 'teamUser')).status).toBe(400);
      expect((await t.call('GET', `${path}${suffix}`, null)).status).toBe(401);
    }
    const refused = await openSse(`${t.base}${path}/stream?team_id=${t.teamB}`, t.cookieOf('teamAdmin'));
    expect(refused.status).toBe(403);
  });
});

describe('GET /api/users/me/mcp/client-activity/stream', () => {
  it('sends the REST answer as the snapshot, then sessions of the caller’s teams as they change', async () => {
    const client = await openSse(`${t.base}${path}/stream`, t.cookieOf('teamUser'));
    expect(client.status).toBe(200);
    const [snapshot] = await client.waitForCount(1);
    expect(snapshot?.event).toBe('snapshot');
    expect(JSON.parse(snapshot?.data ?? '')).toEqual((await t.call('GET', path, 'teamUser')).body.data);

    await send(satB, connected('b-2', t.teamB)); // another team's: not for this client
    await send(satA, disconnected('a-1', t.teamA));
    const [, update] = await client.waitForCount(2);
    expect(update?.event).toBe('update');
    expect(JSON.parse(update?.data ?? '').items).toEqual([
      expect.objectContaining({ session_id: 'a-1', active: false, tool_execution_count: 4 }),
    ]);
    expect(Number(update?.id)).toBeGreaterThan(Number(snapshot?.id));
    expect(client.events).toHaveLength(2);
    client.close();
  });

  it('replays missed sessions after Last-Event-ID for a global admin, and cleans up on leave', async () => {
    await waitUntil(() => t.live.size() === 0 && t.live.feeds() === 0);
    const first = await openSse(`${t.base}${path}/stream`, t.cookieOf('admin'));
    await first.waitForCount(1);
    await send(satB, connected('b-3', t.teamB));
    await first.waitForCount(2);
    const lastSeen = first.lastEventId();
    first.close();
    await send(satA, connected('a-2', t.teamA));
    await send(satB, disconnected('b-3', t.teamB));
    const second = await openSse(`${t.base}${path}/stream`, { ...t.cookieOf('admin'), 'last-event-id': lastSeen });
    const events = await second.waitForCount(2);
    expect(events.map((e) => [e.event, JSON.parse(e.data).items[0].session_id])).toEqual([
      ['update', 'a-2'],
      ['update', 'b-3'],
    ]);
    await second.waitForText(': keep-alive');
    second.close();
    await waitUntil(() => t.live.size() === 0 && t.live.feeds() === 0);
  });
});
