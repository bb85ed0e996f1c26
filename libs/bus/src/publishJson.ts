import { type JetStreamClient, jetstream } from '@nats-io/jetstream';
import { type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import type { Bus } from './createBus.ts';
import { translatePublishError } from './jetStreamErrors.ts';
import { busDisconnected } from './natsErrors.ts';

export type PublishOptions = {
  /** Stable id; JetStream drops a second message with the same id inside the stream's duplicate window. */
  msgId?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
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
 * Publishes to JetStream and waits for the stream's acknowledgement: resolved means stored. Any
 * failure is an `unavailable` AppError, so callers never report an unstored message as stored.
 */
export function publishJson(
  bus: Bus,
  subject: string,
  payload: unknown,
  options: PublishOptions = {},
): Promise<PublishResult> {
  return publishData(bus, subject, JSON.stringify(payload), options);
}

/** publishJson for a body that is already encoded (a parked or replayed message keeps its bytes). */
export async function publishData(
  bus: Bus,
  subject: string,
  data: string | Uint8Array,
  options: PublishOptions = {},
): Promise<PublishResult> {
  if (!bus.isConnected()) throw busDisconnected(subject);
  const hdrs = natsHeaders();
  for (const [key, value] of Object.entries(options.headers ?? {})) hdrs.set(key, value);
  try {
    const ack = await clientFor(bus).publish(bus.subject(subject), data, {
      headers: hdrs,
      ...(options.msgId ? { msgID: options.msgId } : {}),
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    });
    return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  } catch (error) {
    throw translatePublishError(error, subject);
  }
}
