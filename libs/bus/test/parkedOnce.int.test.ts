import { jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { defineEvent, defineEventBatch, parkedEventsStream } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createLogger } from '@orbital/logger';
import { defineTestStream, openStreamBus } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Bus, consumeDurable, type DurableConsumer, listParked, publishData, streamName } from '../src/index.ts';
import { collector } from './testHelpers.ts';

/**
 * An event of a batch message that breaks its contract is parked alone while the others are stored;
 * its batch stays in the stream until they are, and may come back long after the parked stream's
 * duplicate window (a redelivery after a failure, an outage retried in place, a restart). It must be
 * parked once however late it comes back. The window is shrunk to 1 s here, so "late" is seconds.
 */
let closeBus: () => Promise<void>;
let bus: Bus;
const consumers: DurableConsumer[] = [];
const silent = createLogger({ name: 'parked-once-test', level: 'silent' });

const stream = defineTestStream('EVENTS_PARKED_ONCE_TEST', ['evt.parkonce.>']);
/** Each test its own batch event, so each durable reads only its own test's batches. */
const itemPayload = z.object({ id: z.string(), n: z.number() }).strict();
const batchOf = (name: string) =>
  defineEventBatch(
    defineEvent({
      subject: `evt.parkonce.${name}.item`,
      stream,
      producer: 'installations',
      consumers: ['installations'],
      description: 'one event',
      payload: itemPayload,
    }),
    { subject: `evt.parkonce.${name}.batch`, description: 'events of one kind', maxEvents: 10 },
  );
type Item = z.infer<typeof itemPayload>;

/** Stores a batch as it is, past its contract, as a producer that checks each event alone would. */
const publishBatch = (name: string, events: Array<{ id: string; n: unknown }>) =>
  publishData(bus, `evt.parkonce.${name}.batch`, JSON.stringify({ events }));

/** A batch whose middle event breaks its contract (`n` is text). */
const withBrokenEvent = (name: string) =>
  publishBatch(name, [
    { id: `${name}-1`, n: 1 },
    { id: `${name}-broken`, n: 'two' },
    { id: `${name}-3`, n: 3 },
  ]);

async function consume(durable: string, name: string, handler: (events: Item[]) => Promise<void>) {
  const consumer = await consumeDurable(bus, {
    events: [batchOf(name)],
    durable,
    logger: silent,
    maxAttempts: 5,
    // Longer than the parked stream's duplicate window: each redelivery comes after it has forgotten.
    backoffMs: [1500],
    handler: async (payload) => handler((payload as { events: Item[] }).events),
  });
  consumers.push(consumer);
  // A consumer brings the parked stream to its definition as it starts: the window is shortened after.
  await shortenParkedWindow();
  return consumer;
}

/** A duplicate window of 1 s instead of 10 minutes on the parked stream. */
async function shortenParkedWindow() {
  const jsm = await jetstreamManager(bus.connection);
  const parked = await jsm.streams.info(streamName(bus, parkedEventsStream.name));
  await jsm.streams.update(parked.config.name, { ...parked.config, duplicate_window: nanos(1000) });
}

const parkedIds = async (durable: string) =>
  (await listParked(bus, { durable })).map((p) => (p.payload as { events: Item[] }).events.map((e) => e.id));

beforeAll(async () => {
  ({ bus, close: closeBus } = await openStreamBus('parked-once-test', stream));
});

afterAll(async () => {
  for (const consumer of consumers) await consumer.stop();
  await closeBus();
});

describe('an event of a batch that breaks its contract', () => {
  it('is parked once when its batch is delivered again after the duplicate window', async () => {
    const stored = collector<string>();
    let calls = 0;
    await consume('parked_once_redelivered', 'redelivered', async (events) => {
      calls += 1;
      // The others fail twice for a reason that is not transient: redelivered after the back-off.
      if (calls <= 2) throw new Error('not this time');
      stored.push(...events.map((e) => e.id));
    });
    await withBrokenEvent('redelivered');
    await stored.until((ids) => ids.length === 2);
    expect(stored.items).toEqual(['redelivered-1', 'redelivered-3']);
    expect(calls).toBe(3);
    expect(await parkedIds('parked_once_redelivered')).toEqual([['redelivered-broken']]);
  });

  it('is parked once through an outage retried in place and a restart, both past the duplicate window', async () => {
    const durable = 'parked_once_outage';
    const tries = collector<number>();
    const first = await consume(durable, 'outage', async () => {
      tries.push(tries.items.length + 1);
      throw new AppError('unavailable', 'the database is away');
    });
    await withBrokenEvent('outage');
    // In-place tries back off 250, 500, 1000 ms: the fourth comes after the window.
    await tries.until((items) => items.length >= 4);
    await first.stop();
    expect(await parkedIds(durable)).toEqual([['outage-broken']]);

    // Another replica (or the same service restarted) gets the batch again and stores the others.
    const stored = collector<string>();
    await consume(durable, 'outage', async (events) => stored.push(...events.map((e) => e.id)));
    await stored.until((ids) => ids.length === 2);
    expect(stored.items).toEqual(['outage-1', 'outage-3']);
    expect(await parkedIds(durable)).toEqual([['outage-broken']]);
  });

  it('is still parked, with every other broken event of its batch, each on its own', async () => {
    const stored = collector<string>();
    await consume('parked_once_several', 'several', async (events) => stored.push(...events.map((e) => e.id)));
    await publishBatch('several', [
      { id: 'several-a', n: 'x' },
      { id: 'several-1', n: 1 },
      { id: 'several-b', n: 'y' },
    ]);
    await stored.until((ids) => ids.length === 1);
    expect(stored.items).toEqual(['several-1']);
    expect(await parkedIds('parked_once_several')).toEqual([['several-a'], ['several-b']]);
  });
});
