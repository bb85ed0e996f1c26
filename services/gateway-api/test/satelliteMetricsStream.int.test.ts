import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heartbeatBody, satelliteBody } from './satelliteHarness.ts';
import { openSse } from './sseClient.ts';
import { type StreamTestStack, startStreamTestStack, waitUntil } from './streamTestStack.ts';

let t: StreamTestStack;
let satelliteId = '';
let apiKey = '';

const metricsPath = () => `/api/satellites/${satelliteId}/metrics`;
const beatWithCpu = async (cpu: number) => {
  const body = heartbeatBody();
  body.system.cpu_percent = cpu;
  const response = await t.call('POST', `/api/satellites/${satelliteId}/heartbeat`, null, body, {
    authorization: `Bearer ${apiKey}`,
  });
  expect(response.status).toBe(200);
};

beforeAll(async () => {
  t = await startStreamTestStack();
  const token = await t.call('POST', `/api/teams/${t.teamA}/satellites/registration-tokens`, 'admin', {});
  expect(token.status).toBe(201);
  const registered = await t.call('POST', '/api/satellites/register', null, satelliteBody('metrics-sat'), {
    authorization: token.body.data.authorization,
  });
  expect(registered.status).toBe(201);
  satelliteId = registered.body.data.satellite_id;
  apiKey = registered.body.data.api_key;
  await beatWithCpu(10);
});

afterAll(async () => {
  await t?.stop();
});

describe('GET /api/satellites/:id/metrics/stream', () => {
  it('refuses callers who may not see the satellite, as the REST twin does', async () => {
    for (const suffix of ['', '/stream']) {
      expect((await t.call('GET', `${metricsPath()}${suffix}`, 'otherTeam')).status).toBe(404);
      expect((await t.call('GET', `${metricsPath()}${suffix}`, null)).status).toBe(401);
      expect((await t.call('GET', `${metricsPath()}${suffix}?limit=0`, 'teamUser')).status).toBe(400);
    }
    const anonymous = await openSse(`${t.base}${metricsPath()}/stream`, {});
    expect(anonymous.status).toBe(401);
    const other = await openSse(`${t.base}${metricsPath()}/stream`, t.cookieOf('otherTeam'));
    expect(other.status).toBe(404);
  });

  it('sends the REST answer with the same query as the snapshot, then each new heartbeat', async () => {
    await beatWithCpu(20);
    const client = await openSse(`${t.base}${metricsPath()}/stream?limit=1`, t.cookieOf('teamUser'));
    expect(client.status).toBe(200);
    const [snapshot] = await client.waitForCount(1);
    expect(snapshot?.event).toBe('snapshot');
    const rest = await t.call('GET', `${metricsPath()}?limit=1`, 'teamUser');
    expect(JSON.parse(snapshot?.data ?? '')).toEqual(rest.body.data);
    expect(rest.body.data.heartbeats).toHaveLength(1);

    await beatWithCpu(55);
    const [, update] = await client.waitForCount(2);
    expect(update?.event).toBe('update');
    expect(Number(update?.id)).toBeGreaterThan(Number(snapshot?.id));
    const data = JSON.parse(update?.data ?? '');
    // The point and the process rows are exactly what the REST twin now lists first.
    const after = await t.call('GET', `${metricsPath()}?limit=1`, 'teamUser');
    expect(data.heartbeats).toEqual(after.body.data.heartbeats);
    expect(data.heartbeats[0].cpu_percent).toBe(55);
    expect(data.processes).toEqual(after.body.data.processes);
    client.close();
  });

  it('is open to the global admin and replays missed heartbeats after Last-Event-ID', async () => {
    const first = await openSse(`${t.base}${metricsPath()}/stream`, t.cookieOf('admin'));
    await first.waitForCount(1);
    await beatWithCpu(1);
    await first.waitForCount(2);
    const lastSeen = first.lastEventId();
    first.close();
    await beatWithCpu(2);
    await beatWithCpu(3);
    const second = await openSse(`${t.base}${metricsPath()}/stream`, {
      ...t.cookieOf('admin'),
      'last-event-id': lastSeen,
    });
    const events = await second.waitForCount(2);
    expect(events.map((e) => [e.event, JSON.parse(e.data).heartbeats[0].cpu_percent])).toEqual([
      ['update', 2],
      ['update', 3],
    ]);
    second.close();
  });

  it('keeps alive and leaves no stream or feed behind when the client goes', async () => {
    await waitUntil(() => t.live.size() === 0 && t.live.feeds() === 0);
    const client = await openSse(`${t.base}${metricsPath()}/stream`, t.cookieOf('teamAdmin'));
    await client.waitForText(': keep-alive');
    await waitUntil(() => t.live.feeds() === 1);
    client.close();
    await waitUntil(() => t.live.size() === 0 && t.live.feeds() === 0);
  });
});
