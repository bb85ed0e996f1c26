import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Bus } from '@orbital/bus';
import type { EventDef, EventPayloadOf, EventTokens } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import type { LiveStreams } from './createLiveStreams.ts';
import { formatSseComment, formatSseEvent } from './formatSseEvent.ts';
import { type JetStreamFeed, openJetStreamFeed, readStreamBounds } from './openJetStreamFeed.ts';

/** Returned by `update` for a message that is not for this client (another installation, a filter). */
export const skipMessage = Symbol('skipMessage');
/** Returned by `update` for a message whose content the client already has from its snapshot. */
export const alreadyInSnapshot = Symbol('alreadyInSnapshot');

export type UpdateContext<S> = {
  /** The REST twin's data read when the stream opened (also on a replay, where it is not sent). */
  current: S;
  /** The snapshot this client received, or null on a replay (nothing to deduplicate against). */
  sent: S | null;
};

export type EventStreamOptions<S, E extends EventDef> = {
  request: IncomingMessage;
  response: ServerResponse;
  /** Called once the stream is accepted, before the first byte (Fastify: `reply.hijack()`). */
  hijack(): void;
  bus: Bus;
  live: LiveStreams;
  logger: Logger;
  /** The route, for the live-stream gauge and logs. */
  route: string;
  /** The event that feeds the updates, with the subject tokens that select this client's messages. */
  event: E;
  tokens?: EventTokens<E>;
  /** The client's Last-Event-ID header, if it sent one. */
  lastEventId: string | undefined;
  keepAliveMs: number;
  retryMs: number;
  /**
   * The REST twin's data, with the same query. It is also the access check: it runs before any byte
   * is written, so a refusal answers with the usual JSON error and status code.
   */
  snapshot(): Promise<S>;
  /** The data of an `update` event for one feed message, or `skipMessage` / `alreadyInSnapshot`. */
  update(payload: EventPayloadOf<E>, context: UpdateContext<S>): unknown;
  /** Event name of updates: `update`, or `notification` for notification streams. */
  updateEvent?: string;
  /** A client that falls this far behind is disconnected; it reconnects and replays from its last id. */
  maxBufferedBytes?: number;
};

const idPattern = /^\d{1,15}$/;

/**
 * One SSE stream, the same for every stream endpoint: a `snapshot` event with
 * the REST twin's data, then `update` events fed from JetStream, never from a database poll. Every
 * event's id is a JetStream sequence; the snapshot's id is the sequence it is consistent with. A client
 * reconnecting with Last-Event-ID gets exactly the messages after that id (no snapshot), or a fresh
 * snapshot when those messages are no longer retained. Keep-alive comments every `keepAliveMs`; when the
 * client leaves, the feed is closed, timers cleared, and nothing is written, even by work that was in
 * flight at that moment. Resolves when the stream has ended and been cleaned up.
 */
export async function serveEventStream<S, E extends EventDef>(o: EventStreamOptions<S, E>): Promise<void> {
  const requestedId = o.lastEventId?.trim();
  const lastSeen = requestedId && idPattern.test(requestedId) ? Number(requestedId) : null;

  let startSeq: number;
  let current: S;
  let sent: S | null = null;
  let snapshotId: number | null = null;
  const bounds = await readStreamBounds(o.bus, o.event.stream.name);
  if (lastSeen !== null && lastSeen <= bounds.lastSeq && lastSeen + 1 >= bounds.firstSeq) {
    // Exact replay: everything after what the client saw is still in the stream.
    current = await o.snapshot();
    startSeq = lastSeen + 1;
  } else {
    // The bounds are read before the snapshot: a change committed in between may show in both, and
    // `update` then answers alreadyInSnapshot; nothing can fall between the two.
    current = await o.snapshot();
    sent = current;
    snapshotId = bounds.lastSeq;
    startSeq = bounds.lastSeq + 1;
  }

  const { request, response } = o;
  if (request.destroyed || response.destroyed) return;
  o.hijack();
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Proxies (nginx) would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });

  const controller = new AbortController();
  const entry = { route: o.route, startedAt: Date.now(), close: () => response.destroy() };
  o.live.add(entry);
  const { signal } = controller;
  const leave = () => controller.abort();
  response.on('close', leave);
  // The client may have gone between the checks above and the listener: its 'close' is then already past.
  if (response.destroyed || request.socket.destroyed) controller.abort();
  const maxBuffered = o.maxBufferedBytes ?? 1024 * 1024;
  const write = (text: string) => {
    if (signal.aborted) return;
    response.write(text);
    if (response.writableLength > maxBuffered) {
      o.logger.warn({ route: o.route }, 'SSE client too slow; closing so it resumes from its last id');
      response.destroy();
    }
  };

  write(formatSseEvent({ retryMs: o.retryMs }));
  if (snapshotId !== null) write(formatSseEvent({ id: String(snapshotId), event: 'snapshot', data: current }));
  const keepAlive = setInterval(() => write(formatSseComment('keep-alive')), o.keepAliveMs);

  let feed: JetStreamFeed<EventPayloadOf<E>> | null = null;
  try {
    if (signal.aborted) return;
    feed = await openJetStreamFeed(o.bus, { event: o.event, ...(o.tokens ? { tokens: o.tokens } : {}), startSeq });
    o.live.feedOpened();
    // Closing the feed ends the loop below at once, even while it waits for the next message.
    const opened = feed;
    signal.addEventListener('abort', () => void opened.close().catch(() => {}), { once: true });
    if (signal.aborted) return;
    const context: UpdateContext<S> = { current, sent };
    for await (const message of feed) {
      if (signal.aborted) break;
      const data = o.update(message.payload, context);
      if (data === skipMessage) continue;
      if (data === alreadyInSnapshot) write(formatSseEvent({ id: String(message.seq) }));
      else write(formatSseEvent({ id: String(message.seq), event: o.updateEvent ?? 'update', data }));
    }
  } catch (err) {
    if (!signal.aborted) o.logger.warn({ err, route: o.route }, 'SSE feed failed; closing so the client resumes');
  } finally {
    clearInterval(keepAlive);
    response.off('close', leave);
    controller.abort();
    if (feed) {
      await feed.close().catch(() => {});
      o.live.feedClosed();
    }
    if (!response.writableEnded) response.end();
    o.live.delete(entry);
  }
}
