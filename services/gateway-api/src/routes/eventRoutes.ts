import type { Bus } from '@orbital/bus';
import { eventBatchReply, eventBatchRequest } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { EventRateLimiter } from '../events/createEventRateLimiter.ts';
import { ingestEventBatch } from '../events/ingestEventBatch.ts';
import { defineRoute } from '../http/defineRoute.ts';
import { satelliteParams } from '../http/pathParams.ts';
import { ownSatellite } from '../http/routeAccess.ts';

/**
 * Satellite event batches. The status codes are what the satellite acts on, never the message text: 200
 * with a result per event (it drops the rejected ones), 400 for a body that is not a batch at all, 401
 * for a bad key (it keeps its events), 429 (it keeps them and backs off), 503 when the event store did
 * not confirm (it keeps them and retries; stored ones are deduplicated by id).
 */
export function eventRoutes(bus: Bus, options: { rateLimiter?: EventRateLimiter; publishTimeoutMs?: number }) {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/satellites/:id/events',
      summary: 'A satellite reports a batch of 1 to 100 events; each is accepted or rejected on its own',
      tags: ['satellites'],
      access: ownSatellite(),
      params: satelliteParams,
      body: eventBatchRequest,
      // A NUL or half a character a process wrote to its stderr must not cost the satellite the event
      // (docs/events.md).
      unstorableText: 'clean',
      response: eventBatchReply,
      handler: async ({ identity, body, requestId, reply }) => {
        // The route's access (ownSatellite) admitted only a satellite on its own id: the batch is published
        // under the id of the key that sent it, which every consumer believes.
        if (identity.kind !== 'satellite') throw new AppError('internal', 'The events route admits satellites only');
        const decision = await options.rateLimiter?.check(identity.satellite_id);
        if (decision && !decision.allowed) {
          void reply.header('retry-after', String(decision.retryAfterSeconds));
          throw new AppError('rate_limited', 'Too many event batches from this satellite', {
            details: { retry_after_seconds: decision.retryAfterSeconds },
          });
        }
        return ingestEventBatch(bus, identity, body, {
          requestId,
          ...(options.publishTimeoutMs ? { publishTimeoutMs: options.publishTimeoutMs } : {}),
        });
      },
    }),
  ];
}
