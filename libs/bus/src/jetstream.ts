import {
  AckPolicy,
  DeliverPolicy,
  type JsMsg,
  jetstream,
  jetstreamManager,
  type PubAck,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import { nanos, headers as natsHeaders } from '@nats-io/transport-node';
import type { Logger } from '@orbital/logger';
import type { Bus } from './createBus.ts';

export type StreamDefinition = {
  /** Stream name before the deployment prefix (letters, digits, _ and -). */
  name: string;
  /** Subjects before the deployment prefix; wildcards allowed. */
  subjects: string[];
  maxAgeMs: number;
  maxBytes: number;
  /** Window in which a repeated Nats-Msg-Id is dropped as a duplicate. */
  duplicateWindowMs: number;
};

export function streamName(bus: Bus, name: string): string {
  return bus.prefix ? `${bus.prefix}_${name}` : name;
}

/** Creates the stream, or updates it to this definition when it exists; safe to call from every replica. */
export async function ensureStream(bus: Bus, def: StreamDefinition): Promise<void> {
  const jsm = await jetstreamManager(bus.connection);
  const config = {
    name: streamName(bus, def.name),
    subjects: def.subjects.map((s) => bus.subject(s)),
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(def.maxAgeMs),
    max_bytes: def.maxBytes,
    duplicate_window: nanos(def.duplicateWindowMs),
  };
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, config);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    try {
      await jsm.streams.add(config);
    } catch (addError) {
      // Another replica created it between our check and our add.
      if (!String((addError as Error).message).includes('already in use')) throw addError;
    }
  }
}

export type PublishOptions = {
  /** Stable id; JetStream drops a second message with the same id inside the duplicate window. */
  msgId?: string;
  headers?: Record<string, string>;
};

export async function publishJson(
  bus: Bus,
  subject: string,
  payload: unknown,
  options: PublishOptions = {},
): Promise<PubAck> {
  const js = jetstream(bus.connection);
  const hdrs = natsHeaders();
  for (const [key, value] of Object.entries(options.headers ?? {})) hdrs.set(key, value);
  return js.publish(bus.subject(subject), JSON.stringify(payload), {
    headers: hdrs,
    ...(options.msgId ? { msgID: options.msgId } : {}),
  });
}

export type EventHandler = (payload: unknown, message: JsMsg) => Promise<void>;

export type ConsumeOptions = {
  stream: string;
  /** Durable consumer name: one per consuming service and purpose, shared by its replicas. */
  durable: string;
  filterSubjects: string[];
  handler: EventHandler;
  logger: Logger;
  /** Attempts before a message is given up (terminated) and logged. */
  maxDeliver?: number;
  /** Redelivery delays after each failed attempt. */
  backoffMs?: number[];
  ackWaitMs?: number;
};

export type DurableConsumer = { stop(): Promise<void> };

/**
 * Consumes a durable consumer: a message is acknowledged only after its handler resolved (so after the
 * handler's write committed), redelivered with backoff when it threw, and terminated after maxDeliver.
 */
export async function consumeDurable(bus: Bus, options: ConsumeOptions): Promise<DurableConsumer> {
  const jsm = await jetstreamManager(bus.connection);
  const stream = streamName(bus, options.stream);
  const durable = bus.prefix ? `${bus.prefix}_${options.durable}` : options.durable;
  const maxDeliver = options.maxDeliver ?? 5;
  const backoff = options.backoffMs ?? [1000, 5000, 15000, 30000];
  const config = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    // One subject as filter_subject: NATS before 2.10 (Debian's 2.9) refuses filter_subjects.
    ...(options.filterSubjects.length === 1
      ? { filter_subject: bus.subject(options.filterSubjects[0] as string) }
      : { filter_subjects: options.filterSubjects.map((s) => bus.subject(s)) }),
    max_deliver: maxDeliver,
    ack_wait: nanos(options.ackWaitMs ?? 30000),
  };
  try {
    await jsm.consumers.info(stream, durable);
    await jsm.consumers.update(stream, durable, config);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.consumers.add(stream, config);
  }
  const consumer = await jetstream(bus.connection).consumers.get(stream, durable);
  const messages = await consumer.consume();
  const done = (async () => {
    for await (const msg of messages) {
      const attempt = msg.info.deliveryCount;
      try {
        await options.handler(msg.json(), msg);
        msg.ack();
      } catch (error) {
        if (attempt >= maxDeliver) {
          options.logger.error(
            { err: error, subject: msg.subject, seq: msg.seq, attempt },
            'event given up after the last attempt',
          );
          msg.term('handler failed on every attempt');
        } else {
          options.logger.warn(
            { err: error, subject: msg.subject, seq: msg.seq, attempt },
            'event handler failed; will retry',
          );
          msg.nak(backoff[Math.min(attempt - 1, backoff.length - 1)]);
        }
      }
    }
  })();
  return {
    stop: async () => {
      await messages.close();
      await done;
    },
  };
}

function isNotFound(error: unknown): boolean {
  const message = String((error as Error)?.message ?? '');
  return message.includes('not found') || (error as { code?: number })?.code === 404;
}
