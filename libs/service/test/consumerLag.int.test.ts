import { AckPolicy, jetstreamManager } from '@nats-io/jetstream';
import { type Bus, durableName, publishEvent, streamName } from '@orbital/bus';
import { defineEvent } from '@orbital/contracts';
import { defineTestStream, openStreamBus } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collectConsumerLag } from '../src/collectConsumerLag.ts';
import { createMetrics } from '../src/createMetrics.ts';

let closeBus: () => Promise<void>;
let bus: Bus;
const stream = defineTestStream('LAG_TEST', ['lagtest.>'], { maxBytes: 1024 * 1024 });
const lagEvent = defineEvent({
  subject: 'lagtest.event',
  stream,
  producer: 'installations',
  consumers: ['installations'],
  description: 'test',
  payload: z.object({ i: z.number() }),
});

beforeAll(async () => {
  ({ bus, close: closeBus } = await openStreamBus('lag-test', stream));
});
afterAll(async () => {
  await closeBus();
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
