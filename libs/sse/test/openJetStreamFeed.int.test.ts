import { publishEvent } from '@orbital/bus';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FeedMessage, openJetStreamFeed } from '../src/index.ts';
import { useTestEventStream } from './useTestEventStream.ts';

const fixture = useTestEventStream('feed', z.object({ n: z.number() }));
const { serverConsumers } = fixture;

const open = (startSeq = 1) => openJetStreamFeed(fixture.bus, { event: fixture.event, startSeq });

beforeAll(async () => {
  await publishEvent(fixture.bus, fixture.event, { n: 1 }, { tokens: { part: 'a' } });
  await publishEvent(fixture.bus, fixture.event, { n: 2 }, { tokens: { part: 'a' } });
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
