import { z } from 'zod';
import { errorBody } from '../reply.ts';

/** Most events in one batch; the satellite's `EVENT_MAX_BATCH_SIZE` may not exceed it. */
export const maxEventsPerBatch = 100;

/**
 * Body of POST /api/satellites/:id/events. Only the batch as a whole is checked here: each event is
 * validated on its own (parseSatelliteEvent) so one bad event never costs the satellite the others.
 */
export const eventBatchRequest = z.object({
  events: z
    .array(
      z.unknown().meta({ description: 'An event envelope {id, type, timestamp, data}; see the AsyncAPI document' }),
    )
    .min(1)
    .max(maxEventsPerBatch),
});
export type EventBatchRequest = z.infer<typeof eventBatchRequest>;

/**
 * The fate of one event, in the order of the batch. `accepted` means stored in JetStream (or already
 * stored: `duplicate`, a retry of an event the backend has); `rejected` events will never be accepted,
 * so the satellite drops and logs them, as it drops a whole batch answered 400.
 */
export const eventResult = z.discriminatedUnion('status', [
  z.object({
    index: z.number().int(),
    id: z.string(),
    status: z.literal('accepted'),
    duplicate: z.boolean(),
  }),
  z.object({
    index: z.number().int(),
    id: z.string().nullable(),
    status: z.literal('rejected'),
    error: errorBody,
  }),
]);
export type EventResult = z.infer<typeof eventResult>;

export const eventBatchReply = z.object({
  accepted: z.number().int(),
  rejected: z.number().int(),
  results: z.array(eventResult),
});
export type EventBatchReply = z.infer<typeof eventBatchReply>;
