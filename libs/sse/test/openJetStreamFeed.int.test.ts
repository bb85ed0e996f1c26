import { jetstreamManager } from '@nats-io/jetstream';
import { type Bus, publishEvent, streamName } from '@orbital/bus';
import { defineEvent } from '@orbital/contracts';
import { defineTestStream, openStreamBus } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FeedMessage, openJetStreamFeed } from '../src/index.ts';

let closeBus: () => Promise<void>;
let bus: Bus;

/** A stream of this file's own, so the tests do not depend on the platform's definitions. */
const feedStream = defineTestStream('SSE_FEED_TEST', ['sse.feed.test.>'], {
  discard: 'old',
  maxBytes: 4 * 1024 * 1024,
});

const feedEvent = defineEvent({
  subject: 'sse.feed.test.{part}',
  stream: feedStream,
  producer: 'installations',
  consumers: ['gateway-api'],
  description: 'test',
  payload: z.object({ n: z.number() }),
});

/** Consumers the server holds on the stream: a closed feed must leave none. */
async function serverConsumers(): Promise<number> {
  const jsm = await jetstreamManager(bus.connection);
  const info = await jsm.streams.info(streamName(bus, feedStream.name));
  return info.state.consumer_count;
}

const open = (startSeq = 1) => openJetStreamFeed(bus, { event: feedEvent, startSeq });

beforeAll(async () => {
  ({ bus, close: closeBus } = await openStreamBus('sse-feed-test', feedStream));
  await publishEvent(bus, feedEvent, { n: 1 }, { tokens: { part: 'a' } });
  await publishEvent(bus, feedEvent, { n: 2 }, { tokens: { part: 'a' } });
});

afterAll(async () => {
  await closeBus?.();
});

describe('openJetStreamFeed', () => {
  it('closes a feed nobody iterated yet, and the server forgets its consumer', async () => {
    // A stream whose client left while the feed was opening closes it without reading it. The
    // library's own close() settles only once an iterator drains its queue, so this used to hang.
    const feed = await open();
    expect(await serverConsumers()).toBe(1);
    await feed.close();
    expect(await serverConsumers()).toBe(0);
    // Iterating afterwards ends at once instead of reading on.
    const after: FeedMessage[] = [];
    for await (const message of feed) after.push(message);
    expect(after).toEqual([]);
  });

  it('delivers from the start sequence, and close ends a loop waiting for the next message', async () => {
    const feed = await open(2);
    const seen: FeedMessage[] = [];
    let wake: () => void = () => {};
    const second = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const loop = (async () => {
      for await (const message of feed) {
        seen.push(message);
        wake();
      }
    })();
    await second;
    // The loop is now waiting for a message that will never come; close must end it.
    await feed.close();
    await loop;
    expect(seen.map((m) => m.payload)).toEqual([{ n: 2 }]);
    expect(await serverConsumers()).toBe(0);
  });

  it('closes once however often it is asked, also after the loop broke off', async () => {
    const feed = await open();
    for await (const _ of feed) break;
    await Promise.all([feed.close(), feed.close()]);
    await feed.close();
    expect(await serverConsumers()).toBe(0);
  });
});
