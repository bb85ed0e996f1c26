import type { JsMsg } from '@nats-io/jetstream';
import { type Bus, consumeDurable, createBus, type DurableConsumer } from '@orbital/bus';
import {
  headerNames,
  type SatelliteEvent,
  type SatelliteIdentity,
  satelliteEventBatches,
  satelliteEventsStream,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createLogger } from '@orbital/logger';
import { openStreamBus, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestEventBatch } from '../src/events/ingestEventBatch.ts';
import { runMessageId } from '../src/events/publishEventRuns.ts';
import { configRefreshedEvent, crashedEvent, toolExecutedEvent } from './eventFixtures.ts';

const logger = createLogger({ name: 'ingest-test', level: 'silent' });
let env: TestEnvironment;
let bus: Bus;
let closeBus: () => Promise<void>;
let consumer: DurableConsumer;
type Stored = { event: SatelliteEvent; subject: string; seq: number; headers: Record<string, string> };
const stored: Stored[] = [];
const waiters: Array<() => void> = [];

/** A satellite as its API key identifies it: a team's own, or global (of no team). */
const satellite = (satelliteId: string, teamId: string | null): SatelliteIdentity => ({
  kind: 'satellite',
  satellite_id: satelliteId,
  satellite_type: teamId === null ? 'global' : 'team',
  team_id: teamId,
});
const globalSatellite = satellite('sat-global', null);
const teamSatellite = satellite('sat-team', 'team-1');

function record(payload: unknown, msg: JsMsg) {
  const headers: Record<string, string> = {};
  for (const [key, values] of msg.headers ?? []) headers[key] = values[0] ?? '';
  for (const event of (payload as { events: SatelliteEvent[] }).events) {
    stored.push({ event, subject: msg.subject, seq: msg.seq, headers });
  }
  for (const wake of waiters.splice(0)) wake();
}

/**
 * Sends a marker event through ingestEventBatch, waits until the consumer has stored it and returns
 * what it stored since the last call, marker left out: the marker, sent last and seen stored, proves
 * nothing sent before it is still coming.
 */
async function storedUpToMarker(): Promise<Stored[]> {
  const marker = configRefreshedEvent();
  await ingestEventBatch(bus, globalSatellite, { events: [marker] });
  while (!stored.some((s) => s.event.id === marker.id)) await new Promise<void>((resolve) => waiters.push(resolve));
  return stored.splice(0).filter((s) => s.event.id !== marker.id);
}

beforeAll(async () => {
  // The satellite events stream the registry would have created: where event batches are stored.
  ({ env, bus, close: closeBus } = await openStreamBus('ingest-test', satelliteEventsStream));
  consumer = await consumeDurable(bus, {
    events: Object.values(satelliteEventBatches),
    durable: 'ingest-test',
    logger,
    handler: async (payload, msg) => record(payload, msg),
  });
});
afterAll(async () => {
  await consumer.stop();
  await closeBus();
});

describe('ingestEventBatch over JetStream', () => {
  it('stores exactly the valid events of a mixed batch and says which were rejected and why', async () => {
    const valid = [crashedEvent(), toolExecutedEvent(), configRefreshedEvent()];
    const badData = crashedEvent('team-1', { will_restart: 'yes' });
    const unknownType = { ...configRefreshedEvent(), type: 'mcp.server.exploded' };
    const noId = { type: 'config.refreshed', timestamp: new Date().toISOString(), data: configRefreshedEvent().data };
    const events = [valid[0], badData, valid[1], unknownType, 'not an event', noId, valid[2]];

    const reply = await ingestEventBatch(bus, globalSatellite, { events }, { requestId: 'req-1' });

    expect(reply.accepted).toBe(3);
    expect(reply.rejected).toBe(4);
    expect(reply.results.map((r) => [r.index, r.status])).toEqual([
      [0, 'accepted'],
      [1, 'rejected'],
      [2, 'accepted'],
      [3, 'rejected'],
      [4, 'rejected'],
      [5, 'rejected'],
      [6, 'accepted'],
    ]);
    expect(reply.results[1]).toMatchObject({
      id: badData.id,
      error: { code: 'validation_failed', details: [expect.objectContaining({ path: 'data.will_restart' })] },
    });
    expect(reply.results[4]).toMatchObject({ id: null, error: { code: 'validation_failed' } });

    const seen = await storedUpToMarker();
    expect(seen.map((s) => s.event.id)).toEqual(valid.map((e) => e.id));
    expect(seen[0]).toMatchObject({
      subject: `${env.subjectPrefix}.evt.satellite.sat-global.batch.mcp.server.crashed`,
      event: { type: 'mcp.server.crashed', data: { will_restart: true, team_id: 'team-1' } },
      headers: {
        [headerNames.satelliteId]: 'sat-global',
        [headerNames.requestId]: 'req-1',
        'Nats-Msg-Id': runMessageId('sat-global', 'mcp.server.crashed', [valid[0]?.id as string]),
      },
    });
    // A global satellite has no team of its own: no team header.
    expect(seen[0]?.headers[headerNames.teamId]).toBeUndefined();
  });

  it('stores consecutive events of one type as one message, in the order they came', async () => {
    const events = [crashedEvent(), toolExecutedEvent(), toolExecutedEvent(), toolExecutedEvent(), crashedEvent()];
    const reply = await ingestEventBatch(bus, globalSatellite, { events });
    expect(reply.accepted).toBe(5);

    const seen = await storedUpToMarker();
    expect(seen.map((s) => s.event.id)).toEqual(events.map((e) => e.id));
    // crashed | three tool calls | crashed: three messages.
    expect(new Set(seen.map((s) => s.seq)).size).toBe(3);
    expect(seen[1]?.seq).toBe(seen[3]?.seq);
  });

  it('cuts a run that would outgrow a stream message into several, and stores every event', async () => {
    // About 400 KB each: three of them do not fit in one 1 MiB message.
    const big = () => toolExecutedEvent('team-1', { request_params: { blob: 'x'.repeat(400_000) } });
    const events = [big(), big(), big()];
    const reply = await ingestEventBatch(bus, globalSatellite, { events });
    expect(reply.accepted).toBe(3);

    const seen = await storedUpToMarker();
    expect(seen.map((s) => s.event.id)).toEqual(events.map((e) => e.id));
    expect(new Set(seen.map((s) => s.seq)).size).toBe(2);
  });

  it('delivers a batch sent twice to consumers once, and says the retry held duplicates', async () => {
    const events = [crashedEvent(), toolExecutedEvent()];
    const first = await ingestEventBatch(bus, teamSatellite, { events });
    const retry = await ingestEventBatch(bus, teamSatellite, { events });
    expect(first.results.map((r) => r.status === 'accepted' && r.duplicate)).toEqual([false, false]);
    expect(retry.results.map((r) => r.status === 'accepted' && r.duplicate)).toEqual([true, true]);

    const seen = await storedUpToMarker();
    expect(seen.map((s) => s.event.id)).toEqual(events.map((e) => e.id));
    expect(seen[0]?.headers).toMatchObject({ [headerNames.satelliteId]: 'sat-team', [headerNames.teamId]: 'team-1' });
  });

  it('keeps the same client id of two satellites apart', async () => {
    const event = configRefreshedEvent();
    await ingestEventBatch(bus, globalSatellite, { events: [event] });
    const other = await ingestEventBatch(bus, teamSatellite, { events: [event] });
    expect(other.results[0]).toMatchObject({ status: 'accepted', duplicate: false });
    expect((await storedUpToMarker()).filter((s) => s.event.id === event.id)).toHaveLength(2);
  });

  it("rejects a team satellite's event about another team, and accepts its team's", async () => {
    const reply = await ingestEventBatch(bus, teamSatellite, {
      events: [crashedEvent('team-2'), crashedEvent('team-1'), configRefreshedEvent()],
    });
    expect(reply.results.map((r) => (r.status === 'rejected' ? r.error.code : r.status))).toEqual([
      'forbidden',
      'accepted',
      'accepted',
    ]);
  });

  it('stores a batch of the most events the route admits, each accepted', async () => {
    const hundred = await ingestEventBatch(bus, globalSatellite, {
      events: Array.from({ length: 100 }, () => configRefreshedEvent()),
    });
    expect(hundred.accepted).toBe(100);
  });

  it('answers unavailable, storing nothing it reports, when JetStream has no stream for the events', async () => {
    const elsewhere = await createBus({ ...env.busOptions('no-stream'), prefix: `${env.subjectPrefix}x`, logger });
    try {
      const error = await ingestEventBatch(
        elsewhere,
        globalSatellite,
        { events: [configRefreshedEvent(), { bad: true }] },
        { publishTimeoutMs: 1000 },
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('unavailable');
    } finally {
      await elsewhere.drain();
    }
  });
});
