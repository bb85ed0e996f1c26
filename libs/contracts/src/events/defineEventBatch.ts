import { z } from 'zod';
import { defineEvent, type EventDef, type EventPayloadOf } from './defineEvent.ts';

/** The payload of a batch message: the events, each a payload of the event it batches. */
export type EventBatchPayload<E extends EventDef> = { events: Array<EventPayloadOf<E>> };

/** A batch message's definition: an EventDef whose `batchOf` is set (to the event it carries). */
export type EventBatchDef<E extends EventDef = EventDef, S extends string = string> = EventDef<
  z.ZodObject<{ events: z.ZodArray<E['payload']> }>,
  S
>;

/**
 * A message that carries several events of one kind, `{events: [...]}`, for producers that receive
 * events in batches: one publish, one delivery and one acknowledgement instead of one per event. The
 * element schema is the event's own, so the event is still defined once; the batch keeps its stream,
 * producer and readers, and has a subject of its own, so a reader can tell the two shapes apart by
 * subject alone.
 */
export function defineEventBatch<E extends EventDef, const S extends string>(
  of: E,
  options: {
    subject: S;
    description: string;
    maxEvents: number;
    headers?: EventDef['headers'];
  },
): EventBatchDef<E, S> {
  const payload = z.object({ events: z.array(of.payload).min(1).max(options.maxEvents) });
  const def = defineEvent({
    subject: options.subject,
    stream: of.stream,
    payload,
    producer: of.producer,
    consumers: of.consumers,
    description: options.description,
    ...(options.headers ? { headers: options.headers } : {}),
  });
  return { ...def, batchOf: of } as EventBatchDef<E, S>;
}
