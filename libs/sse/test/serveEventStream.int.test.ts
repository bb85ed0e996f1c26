import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { publishEvent } from '@orbital/bus';
import { createLogger } from '@orbital/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLiveStreams, createSseParser, type ReceivedSseEvent, serveEventStream } from '../src/index.ts';
import { useTestEventStream } from './useTestEventStream.ts';

const fixture = useTestEventStream('stream', z.object({ items: z.array(z.string()) }));
const { serverConsumers } = fixture;
let server: Server;
let base: string;
const live = createLiveStreams();
const silent = createLogger({ name: 'sse-stream-test', level: 'silent' });
/** The promise of every stream served, so a test can wait for the streams to have ended. */
const served: Promise<void>[] = [];
/** Per request path: the buffer limit the stream runs with. */
const bufferLimits = new Map<string, number>();

beforeAll(async () => {
  server = createServer((request, response) => {
    const stream = serveEventStream({
      request,
      response,
      hijack: () => {},
      bus: fixture.bus,
      live,
      logger: silent,
      route: 'test',
      event: fixture.event,
      lastEventId: undefined,
      keepAliveMs: 60_000,
      retryMs: 1000,
      maxBufferedBytes: bufferLimits.get(request.url ?? ''),
      snapshot: async (): Promise<{ items: string[] }> => ({ items: [] }),
      update: (payload) => payload,
    });
    served.push(stream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** Reads events until `count` have arrived, then leaves (aborts the request). */
async function readThenLeave(url: string, count: number, onEvent?: (events: ReceivedSseEvent[]) => void) {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  const events: ReceivedSseEvent[] = [];
  const parser = createSseParser((event) => {
    events.push(event);
    onEvent?.(events);
  });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  while (reader && events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.push(value);
  }
  controller.abort();
  return events;
}

describe('serveEventStream clean-up', () => {
  it('ends and releases everything when the client leaves mid-stream', async () => {
    const events = await readThenLeave(`${base}/live`, 2, (received) => {
      if (received.length === 1)
        void publishEvent(fixture.bus, fixture.event, { items: ['x'] }, { tokens: { part: 'a' } });
    });
    expect(events.map((e) => e.event)).toEqual(['snapshot', 'update']);
    await Promise.all(served);
    expect(live.size()).toBe(0);
    expect(live.feeds()).toBe(0);
    expect(await serverConsumers()).toBe(0);
  });

  it('ends and releases everything when the stream is dropped before its feed has opened', async () => {
    // A limit no write can meet: the first write (the retry field) drops the client as too slow, so
    // the 'close' arrives while the feed is being opened, the window in which a departure used to
    // leave the stream waiting forever on a feed nobody would read.
    bufferLimits.set('/drop-at-start', -1);
    const before = served.length;
    const response = await fetch(`${base}/drop-at-start`).catch(() => null);
    await response?.body?.cancel().catch(() => {});
    expect(served.length).toBe(before + 1);
    await Promise.all(served);
    expect(live.size()).toBe(0);
    expect(live.feeds()).toBe(0);
    expect(await serverConsumers()).toBe(0);
  });
});
