import type { Bus } from '@orbital/bus';
import type { Logger } from '@orbital/logger';
import type { LiveStreams } from '@orbital/sse';
import { z } from 'zod';
import type { RouteInput } from '../http/defineRoute.ts';

export type StreamSettings = { live: LiveStreams; keepAliveMs: number; retryMs: number };

/** What OpenAPI shows as the body of every `/stream` route. */
export const streamResponse = z.unknown().meta({ description: 'text/event-stream: snapshot, then update events' });

/**
 * The options of serveEventStream that every stream route shares (the raw request and response, the
 * live-stream registry, keep-alive, retry, Last-Event-ID); a route adds its feed, snapshot and update.
 */
export function streamRouteOptions(
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
