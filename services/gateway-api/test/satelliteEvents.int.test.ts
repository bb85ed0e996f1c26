import { jetstreamManager } from '@nats-io/jetstream';
import { streamName } from '@orbital/bus';
import { satelliteEventsStream } from '@orbital/contracts';
import { stackForFile } from '@orbital/testing/stackForFile';
import { beforeAll, describe, expect, it } from 'vitest';
import { crashedEvent } from './eventFixtures.ts';
import { type Registered, registerSatellite, startSatelliteStack } from './satelliteHarness.ts';

/**
 * The events endpoint with real satellites: registered through the registry, authenticated by their
 * API keys, each confined to its own id, a team satellite to its own team's events.
 */
const stack = stackForFile(() => startSatelliteStack());
let teamSatellite: Registered;
let other: Registered;

beforeAll(async () => {
  teamSatellite = await registerSatellite(stack, { scope: 'team', team_id: 'team-ev' }, 'events-team');
  other = await registerSatellite(stack, { scope: 'global' }, 'events-other');
});

const send = (satelliteId: string, body: unknown, key?: string) =>
  stack.gateway.inject({
    method: 'POST',
    url: `/api/satellites/${satelliteId}/events`,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    payload: body as object,
  });

/** The last crash a satellite reported, as JetStream stored it under the satellite's own subject (in a batch of one). */
async function lastCrashReportOf(satelliteId: string) {
  const jsm = await jetstreamManager(stack.adminBus.connection);
  const stored = await jsm.streams.getMessage(streamName(stack.adminBus, satelliteEventsStream.name), {
    last_by_subj: stack.adminBus.subject(`evt.satellite.${satelliteId}.batch.mcp.server.crashed`),
  });
  const events = stored?.json<{ events: unknown[] }>().events ?? [];
  expect(events).toHaveLength(1);
  return events[0];
}

describe('POST /api/satellites/:id/events with registered satellites', () => {
  it('stores the valid events of its own team and says which were rejected', async () => {
    const good = crashedEvent('team-ev');
    const otherTeam = crashedEvent('team-elsewhere');
    const broken = { ...crashedEvent('team-ev'), data: { nope: true } };
    const response = await send(teamSatellite.id, { events: [good, otherTeam, broken] }, teamSatellite.apiKey);
    expect(response.statusCode).toBe(200);
    const { data } = response.json();
    expect(data).toMatchObject({ accepted: 1, rejected: 2 });
    expect(data.results.map((r: { status: string; error?: { code: string } }) => r.error?.code ?? r.status)).toEqual([
      'accepted',
      'forbidden',
      'validation_failed',
    ]);

    // The accepted event is in JetStream, under the satellite's own subject.
    const stored = await lastCrashReportOf(teamSatellite.id);
    expect(stored).toMatchObject({ id: good.id, data: { team_id: 'team-ev' } });
  });

  it('refuses a satellite on another satellite id, and requests without a valid key', async () => {
    expect((await send(other.id, { events: [crashedEvent()] }, teamSatellite.apiKey)).statusCode).toBe(403);
    expect((await send(teamSatellite.id, { events: [crashedEvent('team-ev')] })).statusCode).toBe(401);
    const forged = `${teamSatellite.apiKey.split('.')[0]}.not-the-secret`;
    const refused = await send(teamSatellite.id, { events: [crashedEvent('team-ev')] }, forged);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ success: false, error: { code: 'unauthenticated' } });
  });

  it('removes NUL characters from events instead of losing them, and refuses an installation id the backend never issued', async () => {
    const withNul = crashedEvent('team-ev', { server_slug: 'git\u0000hub' });
    const foreignId = crashedEvent('team-ev', { server_id: 'inst-1' });
    const response = await send(teamSatellite.id, { events: [withNul, foreignId] }, teamSatellite.apiKey);
    expect(response.statusCode).toBe(200);
    expect(response.json().data.results).toEqual([
      { index: 0, id: withNul.id, status: 'accepted', duplicate: false },
      {
        index: 1,
        id: foreignId.id,
        status: 'rejected',
        error: {
          code: 'validation_failed',
          message: 'The event names an unknown kind of id',
          details: [{ path: 'data.server_id', message: 'must be an id issued by the backend (UUID)' }],
        },
      },
    ]);
    const stored = await lastCrashReportOf(teamSatellite.id);
    expect(stored).toMatchObject({ id: withNul.id, data: { server_slug: 'github' } });
  });
});
