import type { Bus } from '@orbital/bus';
import { eventBatchReply, eventBatchRequest } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { EventRateLimiter } from '../events/createEventRateLimiter.ts';
import { ingestEventBatch } from '../events/ingestEventBatch.ts';
import { defineRoute } from '../http/defineRoute.ts';
import { satelliteParams } from '../http/pathParams.ts';

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
      access: { kind: 'satellite', satelliteParam: 'id' },
      params: satelliteParams,
      body: eventBatchRequest,
      // A NUL or half a character a process wrote to its stderr must not cost the satellite the event
      // (docs/events.md).
      unstorableText: 'clean',
      response: eventBatchReply,
      handler: async ({ identity, params, body, requestId, reply }) => {
        // The access resolver already limits a satellite to its own id; checked again because events
        // published under another satellite's subject would be believed by every consumer.
        if (identity.kind !== 'satellite' || identity.satellite_id !== params.id) {
          throw new AppError('forbidden', 'A satellite may only report its own events');
        }
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
