import { jetstreamManager } from '@nats-io/jetstream';
import { type Bus, streamName } from '@orbital/bus';
import { defineEvent } from '@orbital/contracts';
import { defineTestStream, openStreamBus } from '@orbital/testing';
import { afterAll, beforeAll } from 'vitest';
import type { z } from 'zod';

/**
 * A stream and an event of the file's own, `sse.<name>.test.{part}`, so the tests do not depend on the
 * platform's definitions; a bus with the stream on it for the file (opened in a beforeAll registered
 * before the file's own, closed after the file); and how many consumers the server holds on the
 * stream, which a closed feed or event stream must leave at none.
 */
export function useTestEventStream<const N extends string, P extends z.ZodType>(name: N, payload: P) {
  const stream = defineTestStream(`SSE_${name.toUpperCase()}_TEST`, [`sse.${name}.test.>`], {
    discard: 'old',
    maxBytes: 4 * 1024 * 1024,
  });
  const event = defineEvent({
    subject: `sse.${name}.test.{part}`,
    stream,
    producer: 'installations',
    consumers: ['gateway-api'],
    description: 'test',
    payload,
  });
  let opened: { bus: Bus; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    opened = await openStreamBus(`sse-${name}-test`, stream);
  });
  afterAll(async () => {
    await opened?.close();
  });
  const bus = () => {
    if (!opened) throw new Error('the test stream is open only inside tests and hooks');
    return opened.bus;
  };
  return {
    event,
    get bus() {
      return bus();
    },
    async serverConsumers(): Promise<number> {
      const jsm = await jetstreamManager(bus().connection);
      return (await jsm.streams.info(streamName(bus(), stream.name))).state.consumer_count;
    },
  };
}
