import type { Bus } from '@orbital/bus';
import type { EventDef } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { type EventStreamOptions, type LiveStreams, serveEventStream } from '@orbital/sse';
import { z } from 'zod';
import type { RouteInput } from '../http/defineRoute.ts';

export type StreamSettings = { live: LiveStreams; keepAliveMs: number; retryMs: number };

/** What OpenAPI shows as the body of every `/stream` route. */
export const streamResponse = z.unknown().meta({ description: 'text/event-stream: snapshot, then update events' });

/**
 * The options of serveEventStream that every stream route shares (the raw request and response, the
 * live-stream registry, keep-alive, retry, Last-Event-ID); a route adds its feed, snapshot and update.
 */
function streamRouteOptions(
  bus: Bus,
  logger: Logger,
  settings: StreamSettings,
  input: RouteInput<unknown, unknown, unknown>,
  route: string,
) {
  const lastEventId = input.request.headers['last-event-id'];
  return {
    request: input.request.raw,
    response: input.reply.raw,
    hijack: () => input.reply.hijack(),
    bus,
    live: settings.live,
    logger,
    route,
    lastEventId: Array.isArray(lastEventId) ? lastEventId[0] : lastEventId,
    keepAliveMs: settings.keepAliveMs,
    retryMs: settings.retryMs,
  };
}

/** What one stream route adds to the shared options: its feed (event, tokens), snapshot and update. */
export type RouteStream<S, E extends EventDef> = Omit<
  EventStreamOptions<S, E>,
  keyof ReturnType<typeof streamRouteOptions>
>;

/**
 * Serves a stream route's SSE with the options every stream route shares. The answer is the stream
 * itself, written after the reply is hijacked: the route's handler has nothing of its own to return.
 */
export async function serveRouteStream<S, E extends EventDef>(
  shared: { bus: Bus; logger: Logger; settings: StreamSettings },
  input: RouteInput<unknown, unknown, unknown>,
  route: string,
  stream: RouteStream<S, E>,
): Promise<never> {
  await serveEventStream<S, E>({
    ...streamRouteOptions(shared.bus, shared.logger, shared.settings, input, route),
    ...stream,
  });
  return undefined as never;
}
