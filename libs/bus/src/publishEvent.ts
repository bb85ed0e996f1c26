import { type JetStreamClient, jetstream } from '@nats-io/jetstream';
import { type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import {
  type EventBatchDef,
  type EventDef,
  type EventInputOf,
  type EventPayloadOf,
  type EventTokens,
  eventSubject,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { z } from 'zod';
import type { Bus } from './createBus.ts';
import { translatePublishError } from './jetStreamErrors.ts';
import { busDisconnected } from './natsErrors.ts';

export type PublishOptions<E extends EventDef = EventDef> = {
  /** Tokens of the subject the payload does not carry (a satellite event's satellite id). */
  tokens?: EventTokens<E>;
  /** Stable id; JetStream drops a second message with the same id inside the stream's duplicate window. */
  msgId?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /**
   * Stored only while no message of the stream has this subject yet; otherwise refused with `conflict`.
   * Unlike `msgId`, this holds for as long as the first message stays, not just the duplicate window.
   */
  firstOnSubject?: boolean;
};

export type PublishResult = { stream: string; seq: number; duplicate: boolean };

const clients = new WeakMap<NatsConnection, JetStreamClient>();

function clientFor(bus: Bus): JetStreamClient {
  let client = clients.get(bus.connection);
  if (!client) {
    client = jetstream(bus.connection);
    clients.set(bus.connection, client);
  }
  return client;
}

/**
 * Publishes an event to JetStream and waits for the stream's acknowledgement: resolved means stored.
 * The payload is checked against the event's schema first (a breach is a defect: `internal`, nothing
 * published); any failure to store is an `unavailable` AppError, so callers never report an unstored
 * message as stored.
 */
export async function publishEvent<E extends EventDef>(
  bus: Bus,
  def: E,
  payload: EventInputOf<E>,
  options: PublishOptions<E> = {},
): Promise<PublishResult> {
  const { subject, data } = encodeEvent(def, payload, options.tokens);
  return publishData(bus, subject, data, options);
}

/** The subject and body of an event, checked against its definition (the outbox stores both). */
export function encodeEvent<E extends EventDef>(
  def: E,
  payload: EventInputOf<E>,
  tokens: EventTokens<E> = {},
): { subject: string; data: string } {
  const checked = def.payload.safeParse(payload);
  if (!checked.success) {
    throw new AppError('internal', `An ${def.subject} event breaks its contract`, {
      cause: checked.error,
      details: checked.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return { subject: eventSubject(def, checked.data as EventPayloadOf<E>, tokens), data: JSON.stringify(checked.data) };
}

declare const checkedBy: unique symbol;

/**
 * One event, checked against the definition whose payload schema is `P` and encoded: only
 * `checkEventPart` makes one, so a message assembled from parts (publishEventParts) holds nothing its
 * definition did not check, without checking the whole again.
 */
export type EventPart<P extends z.ZodType = z.ZodType> = string & { readonly [checkedBy]: P };

/** The element schema of a batch definition (defineEventBatch). */
type ElementOf<B extends EventBatchDef> =
  B['payload'] extends z.ZodObject<{ events: z.ZodArray<infer P extends z.ZodType> }> ? P : never;

/** Checks one event against its definition: its parsed payload and its encoded part, or what is wrong. */
export function checkEventPart<E extends EventDef>(
  def: E,
  value: unknown,
): { success: true; data: EventPayloadOf<E>; part: EventPart<E['payload']> } | { success: false; error: z.ZodError } {
  const result = def.payload.safeParse(value);
  if (!result.success) return { success: false, error: result.error };
  return {
    success: true,
    data: result.data as EventPayloadOf<E>,
    part: JSON.stringify(result.data) as EventPart<E['payload']>,
  };
}

/**
 * Publishes one message of an event batch (defineEventBatch), `{"events":[...]}` around parts each
 * checked against the batch's element definition (checkEventPart): what a hot path publishes is checked
 * once, event by event, and never parsed again as a whole.
 */
export async function publishEventParts<B extends EventBatchDef>(
  bus: Bus,
  def: B,
  parts: readonly EventPart<ElementOf<B>>[],
  options: PublishOptions<B> = {},
): Promise<PublishResult> {
  if (parts.length === 0) throw new AppError('internal', `An ${def.subject} message needs at least one event`);
  const { tokens, ...rest } = options;
  const subject = eventSubject(def, undefined, tokens);
  return publishData(bus, subject, `{"events":[${parts.join(',')}]}`, rest);
}

/** Publishes bytes as they are: a parked or replayed message keeps the original's. */
export async function publishData(
  bus: Bus,
  subject: string,
  data: string | Uint8Array,
  options: Omit<PublishOptions, 'tokens'> = {},
): Promise<PublishResult> {
  if (!bus.isConnected()) throw busDisconnected(subject);
  const hdrs = natsHeaders();
  for (const [key, value] of Object.entries(options.headers ?? {})) hdrs.set(key, value);
  try {
    const ack = await clientFor(bus).publish(bus.subject(subject), data, {
      headers: hdrs,
      ...(options.msgId ? { msgID: options.msgId } : {}),
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
      ...(options.firstOnSubject ? { expect: { lastSubjectSequence: 0 } } : {}),
    });
    return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  } catch (error) {
    throw translatePublishError(error, subject);
  }
}
