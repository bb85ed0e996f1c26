import { AckPolicy, jetstreamManager } from '@nats-io/jetstream';
import { type Bus, createBus, durableName, ensureStream, publishEvent, streamName } from '@orbital/bus';
import { defineEvent, type StreamDefinition } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collectConsumerLag } from '../src/collectConsumerLag.ts';
import { createMetrics } from '../src/createMetrics.ts';

let env: TestEnvironment;
let bus: Bus;
const stream: StreamDefinition = {
  name: 'LAG_TEST',
  subjects: ['lagtest.>'],
  owner: 'test',
  description: 'consumer lag test',
  maxAgeMs: 60_000,
  maxBytes: 1024 * 1024,
  maxMessageBytes: 64 * 1024,
  duplicateWindowMs: 60_000,
  discard: 'new',
};
const lagEvent = defineEvent({
  subject: 'lagtest.event',
  stream,
  producer: 'installations',
  consumers: ['installations'],
  description: 'test',
  payload: z.object({ i: z.number() }),
});

beforeAll(async () => {
  env = await createTestEnvironment({ withDatabase: false });
  bus = await createBus({
    ...env.busOptions('lag-test'),
    logger: createLogger({ name: 'lag-test', level: 'silent' }),
  });
  await ensureStream(bus, stream);
});
afterAll(async () => {
  await bus.drain();
  await env.cleanup();
});

describe('collectConsumerLag', () => {
  it('reports what a durable consumer has not yet received, and leaves out consumers that do not exist', async () => {
    const jsm = await jetstreamManager(bus.connection);
    await jsm.consumers.add(streamName(bus, stream.name), {
      durable_name: durableName(bus, 'lagging'),
      ack_policy: AckPolicy.Explicit,
    });
    for (let i = 0; i < 3; i += 1) await publishEvent(bus, lagEvent, { i });
    const metrics = createMetrics('lag-test');
    collectConsumerLag(metrics, bus, [
      { stream: stream.name, durable: 'lagging' },
      { stream: stream.name, durable: 'never_created' },
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'orbital_jetstream_consumer_lag_messages{stream="LAG_TEST",durable="lagging",state="pending",service="lag-test"} 3',
    );
    expect(text).toContain('state="ack_pending",service="lag-test"} 0');
    expect(text).not.toContain('never_created');
  });
});
