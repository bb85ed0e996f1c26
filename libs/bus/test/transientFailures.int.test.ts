import { defineEvent } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createLogger } from '@orbital/logger';
import { defineTestStream, openStreamBus } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Bus, consumeDurable, type DurableConsumer, listParked, publishEvent } from '../src/index.ts';

/**
 * A dependency that is away is not a poison message: what fails transiently waits, held and renewed,
 * and is stored once the dependency is back, however long that takes; nothing is parked or redelivered.
 */
let closeBus: () => Promise<void>;
let bus: Bus;
const consumers: DurableConsumer[] = [];
const silent = createLogger({ name: 'transient-test', level: 'silent' });
const stream = defineTestStream('EVENTS_TRANSIENT_TEST', ['evt.transient.>']);
const eventOf = (name: 'a' | 'b') =>
  defineEvent({
    subject: `evt.transient.${name}`,
    stream,
    producer: 'installations',
    consumers: ['installations'],
    description: 'test',
    payload: z.record(z.string(), z.unknown()),
  });
const eventA = eventOf('a');
const eventB = eventOf('b');

beforeAll(async () => {
  ({ bus, close: closeBus } = await openStreamBus('transient-test', stream));
});
afterAll(async () => {
  for (const consumer of consumers) await consumer.stop();
  await closeBus();
});

const waitUntil = async (check: () => boolean, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('transient failures', () => {
  it('are tried again in place through an outage longer than the ack wait, in batches and alone', async () => {
    const count = 300;
    for (let n = 0; n < count; n += 1) await publishEvent(bus, eventA, { n }, { msgId: `t-${n}` });
    let databaseUp = false;
    const stored = new Map<number, number>();
    const deliveries = new Map<number, number>();
    let batches = 0;
    const store = (n: number, delivery: number) => {
      stored.set(n, (stored.get(n) ?? 0) + 1);
      deliveries.set(n, Math.max(deliveries.get(n) ?? 0, delivery));
    };
    const consumer = await consumeDurable(bus, {
      events: [eventA],
      durable: 'transient',
      logger: silent,
      maxAttempts: 2,
      // Far shorter than the outage: without renewed leases every held message would be redelivered.
      ackWaitMs: 1500,
      maxRetryDelayMs: 200,
      maxPending: 120,
      batch: {
        maxMessages: 50,
        handler: async (items) => {
          if (!databaseUp) throw new AppError('unavailable', 'The database is unavailable');
          batches += 1;
          for (const item of items) store((item.payload as { n: number }).n, item.message.info.deliveryCount);
        },
      },
      handler: async (payload, message) => {
        if (!databaseUp) throw new AppError('unavailable', 'The database is unavailable');
        store((payload as { n: number }).n, message.info.deliveryCount);
      },
    });
    consumers.push(consumer);
    // Down for more than three ack waits.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(stored.size).toBe(0);
    databaseUp = true;
    await waitUntil(() => stored.size === count);
    await consumer.stop();
    expect([...stored.values()].every((times) => times === 1)).toBe(true);
    // Held all along: first deliveries only, in batches, nothing parked.
    expect(Math.max(...deliveries.values())).toBe(1);
    expect(batches).toBeGreaterThan(1);
    expect(batches).toBeLessThan(count / 2);
    expect(await listParked(bus, { durable: 'transient' })).toEqual([]);
  });

  it('parks what the consumer calls poison at once, and counts unknown failures against the attempts', async () => {
    for (const kind of ['constraint', 'bug', 'fine']) {
      await publishEvent(bus, eventB, { kind }, { msgId: `k-${kind}` });
    }
    const handled: string[] = [];
    const consumer = await consumeDurable(bus, {
      events: [eventB],
      durable: 'classified',
      logger: silent,
      maxAttempts: 2,
      backoffMs: [20],
      classifyError: (error) => ((error as Error).message === 'constraint' ? 'poison' : undefined),
      handler: async (payload) => {
        const { kind } = payload as { kind: string };
        if (kind !== 'fine') throw new Error(kind);
        handled.push(kind);
      },
    });
    consumers.push(consumer);
    await waitUntil(() => handled.length === 1);
    let parked: Awaited<ReturnType<typeof listParked>> = [];
    for (let i = 0; i < 100 && parked.length < 2; i += 1) {
      parked = await listParked(bus, { durable: 'classified' });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(parked.map((p) => [(p.payload as { kind: string }).kind, p.attempts]).sort()).toEqual([
      ['bug', 2],
      ['constraint', 1],
    ]);
  });
});
