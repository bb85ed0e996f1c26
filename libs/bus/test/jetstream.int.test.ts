import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { jetstreamManager } from '@nats-io/jetstream';
import { defineEvent, defineEventBatch } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createLogger, type Logger } from '@orbital/logger';
import { defineTestStream, openStreamBus, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Bus,
  checkEventPart,
  consumeDurable,
  type DurableConsumer,
  durableName,
  ensureStream,
  listParked,
  type PublishOptions,
  publishData,
  publishEvent,
  publishEventParts,
  replayParked,
  streamName,
} from '../src/index.ts';
import { collector } from './testHelpers.ts';

let env: TestEnvironment;
let closeBus: () => Promise<void>;
let bus: Bus;
const consumers: DurableConsumer[] = [];
const silent = createLogger({ name: 'jetstream-test', level: 'silent' });

/** A stream of this file's own, so tests do not depend on the platform's definitions. */
const testStream = defineTestStream('EVENTS_TEST', ['evt.test.>']);

const typedSubjects = new Set(['evt.test.typed', 'evt.test.ahead']);

/**
 * An event of the test stream: a subject ending in `>` becomes a last token `{rest}`. Its payload is
 * any object, or `{n: number}` for `evt.test.typed` and `evt.test.ahead`.
 */
function testEvent(subject: string) {
  return defineEvent({
    subject: subject.replace(/\.>$/, '.{rest}'),
    stream: testStream,
    producer: 'installations',
    consumers: ['installations'],
    description: 'test',
    payload: typedSubjects.has(subject) ? z.object({ n: z.number() }).strict() : z.record(z.string(), z.unknown()),
  });
}

/** Publishes on a concrete subject of the test stream, as its event. */
function publishJson(bus: Bus, subject: string, payload: Record<string, unknown>, options: PublishOptions = {}) {
  return publishEvent(bus, testEvent(subject), payload, options);
}

/** A logger whose lines the test can wait for. */
function capturingLogger() {
  const lines = collector<Record<string, unknown>>();
  const logger = createLogger({
    name: 'jetstream-test',
    level: 'warn',
    destination: new Writable({
      write(chunk, _encoding, callback) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        callback();
      },
    }),
  });
  return { lines, logger };
}

const parkedLine = (line: Record<string, unknown>) => line.msg === 'event parked after its last attempt';

type ConsumeTestOptions = Omit<Parameters<typeof consumeDurable>[1], 'events' | 'logger'> & {
  logger?: Logger;
  filterSubjects: string[];
};

async function consume({ filterSubjects, ...options }: ConsumeTestOptions) {
  const consumer = await consumeDurable(bus, {
    events: filterSubjects.map(testEvent),
    logger: options.logger ?? silent,
    backoffMs: [20, 50],
    ...options,
  });
  consumers.push(consumer);
  return consumer;
}

beforeAll(async () => {
  ({ env, bus, close: closeBus } = await openStreamBus('jetstream-test', testStream));
});
afterAll(async () => {
  for (const consumer of consumers) await consumer.stop();
  await closeBus();
});

describe('ensureStream', () => {
  it('creates the stream under the prefix and brings an existing one to its definition', async () => {
    const jsm = await jetstreamManager(bus.connection);
    const name = streamName(bus, testStream.name);
    expect(name).toBe(`${env.subjectPrefix}_EVENTS_TEST`);
    const before = await jsm.streams.info(name);
    expect(before.config.subjects).toEqual([`${env.subjectPrefix}.evt.test.>`]);
    expect(before.config.discard).toBe('new');
    await ensureStream(bus, { ...testStream, maxAgeMs: 120_000 });
    expect((await jsm.streams.info(name)).config.max_age).toBe(120_000 * 1_000_000);
    await ensureStream(bus, testStream);
    expect((await jsm.streams.info(name)).config.max_age).toBe(60_000 * 1_000_000);
  });

  it("caps a stream's size at the bus's streamMaxBytes (JetStream reserves the whole size)", async () => {
    const jsm = await jetstreamManager(bus.connection);
    await ensureStream(bus, { ...testStream, name: 'EVENTS_HUGE', subjects: ['evt.huge.>'], maxBytes: 2 ** 40 });
    expect((await jsm.streams.info(streamName(bus, 'EVENTS_HUGE'))).config.max_bytes).toBe(env.streamMaxBytes);
  });
});

describe('publishEvent', () => {
  it('stores a message once however often it is published with the same id', async () => {
    const msgId = randomUUID();
    const first = await publishJson(bus, 'evt.test.dedup', { n: 1 }, { msgId });
    const second = await publishJson(bus, 'evt.test.dedup', { n: 1 }, { msgId });
    expect(first.duplicate).toBe(false);
    expect(second).toEqual({ ...first, duplicate: true });
  });

  it('reports unavailable when the stream is missing', async () => {
    const missing = { ...testStream, name: 'EVENTS_MISSING', subjects: ['evt.nowhere.>'] };
    const event = defineEvent({
      subject: 'evt.nowhere.x',
      stream: missing,
      producer: 'installations',
      consumers: [],
      description: 'test',
      payload: z.object({}),
    });
    const error = await publishEvent(bus, event, {}, { timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('unavailable');
  });

  it('refuses a payload that breaks the contract, and a subject token that would address others', async () => {
    const typed = testEvent('evt.test.typed');
    const breach = await publishEvent(bus, typed, { n: 'one' } as never).catch((e: unknown) => e);
    expect(breach).toMatchObject({ code: 'internal', details: [{ path: 'n' }] });
    const open = testEvent('evt.test.open.>');
    await expect(publishEvent(bus, open, {}, { tokens: { rest: 'a.b' } })).rejects.toThrow();
    await expect(publishEvent(bus, open, {})).rejects.toThrow(/no value for token/);
  });
});

describe('publishEventParts', () => {
  it('stores a batch assembled from events each checked against their definition, readable as the batch', async () => {
    const typed = testEvent('evt.test.typed');
    const batch = defineEventBatch(typed, {
      subject: 'evt.test.batch.{rest}',
      description: 'test',
      maxEvents: 10,
    });
    const checked = [{ n: 1 }, { n: 'two' }, { n: 3 }].map((value) => checkEventPart(typed, value));
    expect(checked.map((c) => c.success)).toEqual([true, false, true]);
    const parts = checked.flatMap((c) => (c.success ? [c.part] : []));
    const stored = await publishEventParts(bus, batch, parts, { tokens: { rest: 'one' }, msgId: randomUUID() });
    const jsm = await jetstreamManager(bus.connection);
    const message = await jsm.streams.getMessage(streamName(bus, testStream.name), { seq: stored.seq });
    expect(message?.subject).toBe(`${env.subjectPrefix}.evt.test.batch.one`);
    expect(batch.payload.parse(message?.json())).toEqual({ events: [{ n: 1 }, { n: 3 }] });
    await expect(publishEventParts(bus, batch, [], { tokens: { rest: 'one' } })).rejects.toMatchObject({
      code: 'internal',
    });
  });
});

describe('consumeDurable', () => {
  it('delivers what arrived while the consumer was down once it is back, each message once', async () => {
    const seen = collector<number>();
    const handler = async (payload: unknown) => seen.push((payload as { n: number }).n);
    const first = await consume({ durable: 'down-and-back', filterSubjects: ['evt.test.down.>'], handler });
    await publishJson(bus, 'evt.test.down.a', { n: 0 }, { msgId: 'down-0' });
    await seen.until((items) => items.length === 1);
    await first.stop();

    for (let n = 1; n <= 20; n += 1) await publishJson(bus, 'evt.test.down.a', { n }, { msgId: `down-${n}` });
    // Retried publishes of the same events while it is down change nothing.
    for (let n = 1; n <= 20; n += 1) await publishJson(bus, 'evt.test.down.a', { n }, { msgId: `down-${n}` });

    await consume({ durable: 'down-and-back', filterSubjects: ['evt.test.down.>'], handler });
    await seen.until((items) => items.length >= 21);
    await publishJson(bus, 'evt.test.down.a', { n: 21 }, { msgId: 'down-21' });
    await seen.until((items) => items.includes(21));
    expect(seen.items).toEqual(Array.from({ length: 22 }, (_, n) => n));
  });

  it('retries a failing message with back-off, and acknowledges it once the handler succeeds', async () => {
    const attempts = collector<number>();
    const done = collector<number>();
    await consume({
      durable: 'flaky',
      filterSubjects: ['evt.test.flaky'],
      handler: async (_payload, msg) => {
        attempts.push(msg.info.deliveryCount);
        if (msg.info.deliveryCount < 3) throw new Error('database is restarting');
        done.push(msg.seq);
      },
    });
    await publishJson(bus, 'evt.test.flaky', { n: 1 });
    await done.until((items) => items.length === 1);
    expect(attempts.items).toEqual([1, 2, 3]);
    expect(await listParked(bus, { durable: 'flaky' })).toEqual([]);
  });

  it('parks a poison message after its last attempt without holding up the messages behind it', async () => {
    const { lines, logger } = capturingLogger();
    const handled = collector<number>();
    const consumer = await consumeDurable(bus, {
      events: [testEvent('evt.test.poison')],
      durable: 'poison',
      logger,
      maxAttempts: 3,
      backoffMs: [20, 50],
      handler: async (payload) => {
        const { n } = payload as { n: number };
        if (n === 2) throw new Error('cannot store event 2');
        handled.push(n);
      },
    });
    consumers.push(consumer);
    for (let n = 1; n <= 5; n += 1) {
      await publishJson(
        bus,
        'evt.test.poison',
        { n },
        { msgId: `poison-${n}`, headers: { 'x-satellite-id': 'sat-9' } },
      );
    }
    await handled.until((items) => items.length === 4);
    expect(handled.items).toEqual([1, 3, 4, 5]);

    await lines.until((items) => items.some(parkedLine));
    expect(lines.items.find(parkedLine)).toMatchObject({
      level: 'error',
      durable: 'poison',
      attempts: 3,
      reason: 'cannot store event 2',
    });

    const parked = await listParked(bus, { durable: 'poison' });
    expect(parked).toEqual([
      expect.objectContaining({
        durable: 'poison',
        subject: 'evt.test.poison',
        stream: streamName(bus, testStream.name),
        attempts: 3,
        reason: 'cannot store event 2',
        payload: { n: 2 },
        headers: expect.objectContaining({ 'x-satellite-id': 'sat-9' }),
      }),
    ]);

    // Once the cause is fixed, a replay puts it back in front of the same consumer.
    await consumer.stop();
    await consume({
      durable: 'poison',
      filterSubjects: ['evt.test.poison'],
      handler: async (payload) => handled.push((payload as { n: number }).n),
    });
    await replayParked(bus, (parked[0] as { parkedSeq: number }).parkedSeq);
    await handled.until((items) => items.includes(2));
    expect(handled.items.filter((n) => n === 2)).toHaveLength(1);
    expect(await listParked(bus, { durable: 'poison' })).toEqual([]);
  });

  it('parks at once what can never succeed: a payload that is not JSON, or one the handler rejects', async () => {
    const handled = collector<unknown>();
    await consume({
      durable: 'malformed',
      filterSubjects: ['evt.test.malformed'],
      handler: async (payload) => {
        if ((payload as { bad?: boolean }).bad) throw new AppError('validation_failed', 'bad event');
        handled.push(payload);
      },
    });
    await publishData(bus, 'evt.test.malformed', 'not json {');
    await publishJson(bus, 'evt.test.malformed', { bad: true });
    await publishJson(bus, 'evt.test.malformed', { good: true });
    // One at a time in stream order: both were parked before the third was handled.
    await handled.until((items) => items.length === 1);
    const parked = await listParked(bus, { durable: 'malformed' });
    expect(parked.map((p) => [p.payload, p.attempts, p.reason])).toEqual([
      ['not json {', 1, 'the payload is not JSON'],
      [{ bad: true }, 1, 'rejected by the handler: bad event'],
    ]);
  });

  it("parks at once a message that breaks its event's schema, before the handler sees it", async () => {
    const handled = collector<number>();
    await consume({
      durable: 'typed',
      filterSubjects: ['evt.test.typed'],
      handler: async (p) => handled.push((p as { n: number }).n),
    });
    await publishData(bus, 'evt.test.typed', JSON.stringify({ n: 'one' }));
    await publishJson(bus, 'evt.test.typed', { n: 2 });
    await handled.until((items) => items.length === 1);
    expect(handled.items).toEqual([2]);
    const parked = await listParked(bus, { durable: 'typed' });
    expect(parked.map((p) => [p.payload, p.attempts])).toEqual([[{ n: 'one' }, 1]]);
    expect(parked[0]?.reason).toMatch(/breaks the contract of evt\.test\.typed/);
  });

  it('hands waiting messages to the batch handler together and isolates a poison one in a failed batch', async () => {
    for (let n = 1; n <= 30; n += 1) await publishJson(bus, 'evt.test.batch', { n }, { msgId: `batch-${n}` });
    const committed = collector<number>();
    const batchSizes: number[] = [];
    const { lines, logger } = capturingLogger();
    await consume({
      logger,
      durable: 'batched',
      filterSubjects: ['evt.test.batch'],
      maxAttempts: 2,
      batch: {
        maxMessages: 10,
        handler: async (items) => {
          const ns = items.map((item) => (item.payload as { n: number }).n);
          // Like a transaction: one poison row fails the whole batch and nothing of it is kept.
          if (ns.includes(13)) throw new Error('row 13 violates a constraint');
          batchSizes.push(ns.length);
          for (const n of ns) committed.push(n);
        },
      },
      handler: async (payload) => {
        const { n } = payload as { n: number };
        if (n === 13) throw new Error('row 13 violates a constraint');
        committed.push(n);
      },
    });
    await committed.until((items) => items.length === 29);
    await lines.until((items) => items.some(parkedLine));
    expect([...committed.items].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 30 }, (_, i) => i + 1).filter((n) => n !== 13),
    );
    // The 30 waiting messages went in batches of up to 10, not one by one.
    expect(Math.max(...batchSizes)).toBe(10);
    const parked = await listParked(bus, { durable: 'batched' });
    expect(parked.map((p) => [p.payload, p.attempts])).toEqual([[{ n: 13 }, 2]]);
  });

  it('handles messages that arrived while a batch waited as if they had just arrived: good, broken, not JSON, retried', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started = collector<number>();
    const committed = collector<number>();
    let failedOnce = false;
    // One message alone goes to the single handler, several to the batch handler: both do the same.
    const take = async (payloads: Array<{ n: number }>) => {
      const ns = payloads.map((payload) => payload.n);
      started.push(ns.length);
      if (ns.includes(1)) await gate;
      if (ns.includes(2) && !failedOnce) {
        failedOnce = true;
        // A handler that changed what it was given, then met an outage: the next try gets the event.
        (payloads[0] as { n: number }).n = 999;
        throw new AppError('unavailable', 'the database is away');
      }
      for (const n of ns) committed.push(n);
    };
    const { lines, logger } = capturingLogger();
    await consume({
      logger,
      durable: 'ahead',
      filterSubjects: ['evt.test.ahead'],
      batch: {
        maxMessages: 10,
        handler: (items) => take(items.map((item) => item.payload as { n: number })),
      },
      handler: (payload) => take([payload as { n: number }]),
    });
    await publishJson(bus, 'evt.test.ahead', { n: 1 });
    await started.until((items) => items.length === 1);
    // While the first batch waits, the next messages come in behind it.
    await publishData(bus, 'evt.test.ahead', 'not json {');
    await publishData(bus, 'evt.test.ahead', JSON.stringify({ n: 'x' }));
    for (let n = 2; n <= 5; n += 1) await publishJson(bus, 'evt.test.ahead', { n });
    const jsm = await jetstreamManager(bus.connection);
    for (;;) {
      const info = await jsm.consumers.info(streamName(bus, testStream.name), durableName(bus, 'ahead'));
      if (info.num_ack_pending === 7) break;
    }
    release();

    await committed.until((items) => items.length === 5);
    await lines.until((items) => items.filter(parkedLine).length === 2);
    expect(committed.items).toEqual([1, 2, 3, 4, 5]);
    const parked = await listParked(bus, { durable: 'ahead' });
    expect(
      parked.map((p) => [p.payload, p.reason.startsWith('the payload is not JSON') ? 'not JSON' : 'contract']),
    ).toEqual([
      ['not json {', 'not JSON'],
      [{ n: 'x' }, 'contract'],
    ]);
    expect(parked[1]?.reason).toMatch(/breaks the contract of evt\.test\.ahead/);
  });
});
