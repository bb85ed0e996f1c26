import { AckPolicy, DeliverPolicy, type JsMsg, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { parkedEventsStream } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { Bus } from './createBus.ts';
import { ensureStream } from './ensureStream.ts';
import { isJetStreamNotFound } from './jetStreamErrors.ts';
import { parkMessage } from './parkMessage.ts';
import { durableName, streamName } from './streamName.ts';

/**
 * Handles one message. Resolve only once the work is committed: the message is acknowledged after. Throw
 * to have it redelivered later; throw an AppError `validation_failed` when no retry can ever succeed
 * (the payload breaks its contract), and it is parked at once.
 */
export type EventHandler = (payload: unknown, message: JsMsg) => Promise<void>;

export type ConsumeOptions = {
  /** Stream name before the deployment prefix (a StreamDefinition's `name`). */
  stream: string;
  /** Durable consumer name: one per consuming service and purpose, shared by its replicas. */
  durable: string;
  /** Subjects before the deployment prefix. */
  filterSubjects: string[];
  handler: EventHandler;
  logger: Logger;
  /** Attempts before a message is parked on `parked.<durable>` (EVENTS_PARKED). */
  maxAttempts?: number;
  /** Redelivery delay after the 1st, 2nd, ... failed attempt; the last one repeats. */
  backoffMs?: number[];
  /** How long an attempt may run before JetStream gives the message to someone else. */
  ackWaitMs?: number;
  /** Messages handled at once by this replica. 1 keeps the stream's order within the replica. */
  concurrency?: number;
};

export type DurableConsumer = {
  /** Stops taking messages and waits for those being handled. */
  stop(): Promise<void>;
};

/** One subject as `filter_subject`: servers before 2.10 (the 2.9 of Debian) know no `filter_subjects`. */
function subjectFilter(subjects: string[]): { filter_subject: string } | { filter_subjects: string[] } {
  const [only, ...others] = subjects;
  if (only !== undefined && others.length === 0) return { filter_subject: only };
  return { filter_subjects: subjects };
}

export const defaultBackoffMs = [1000, 5000, 15000, 30000];

/**
 * Consumes a durable consumer, so a service that was down reads everything it missed when it comes
 * back, and its replicas share the messages. A message is acknowledged only after its handler resolved;
 * a failure is redelivered after a back-off delay while later messages go on; after `maxAttempts` the
 * message is parked (copied to EVENTS_PARKED with why, then removed from this consumer's way) and an
 * error is logged, so a poison message is neither lost nor blocking. The server-side delivery limit is
 * unlimited on purpose: JetStream's own limit would drop a message silently, we park it instead.
 */
export async function consumeDurable(bus: Bus, options: ConsumeOptions): Promise<DurableConsumer> {
  const maxAttempts = options.maxAttempts ?? 5;
  const backoff = options.backoffMs?.length ? options.backoffMs : defaultBackoffMs;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const stream = streamName(bus, options.stream);
  const durable = durableName(bus, options.durable);
  const log = options.logger.child({ stream: options.stream, durable: options.durable });

  await ensureStream(bus, parkedEventsStream);
  const jsm = await jetstreamManager(bus.connection);
  const config = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ...subjectFilter(options.filterSubjects.map((s) => bus.subject(s))),
    max_deliver: -1,
    ack_wait: nanos(options.ackWaitMs ?? 30000),
    max_ack_pending: Math.max(1000, concurrency * 4),
  };
  try {
    await jsm.consumers.info(stream, durable);
    await jsm.consumers.update(stream, durable, config);
  } catch (error) {
    if (!isJetStreamNotFound(error)) throw error;
    await jsm.consumers.add(stream, config);
  }
  const consumer = await jetstream(bus.connection).consumers.get(stream, durable);
  const messages = await consumer.consume({ max_messages: Math.max(100, concurrency * 2) });

  async function park(msg: JsMsg, attempts: number, reason: string): Promise<void> {
    try {
      await parkMessage(bus, msg, { durable: options.durable, attempts, reason });
      msg.term(reason.slice(0, 200));
      log.error({ subject: msg.subject, seq: msg.seq, attempts, reason }, 'event parked after its last attempt');
    } catch (error) {
      // Parking failed (EVENTS_PARKED full or JetStream away): keep the message, try again later.
      log.error({ err: error, subject: msg.subject, seq: msg.seq }, 'could not park an event; it stays queued');
      msg.nak(backoff[backoff.length - 1]);
    }
  }

  async function handle(msg: JsMsg): Promise<void> {
    const attempt = msg.info.deliveryCount;
    if (attempt > maxAttempts) {
      // Earlier attempts ended without an outcome (the handler hung past ack wait, or the process died).
      return park(msg, attempt - 1, 'no outcome after the last attempt (handler hung or process stopped)');
    }
    let payload: unknown;
    try {
      payload = msg.json();
    } catch {
      return park(msg, attempt, 'the payload is not JSON');
    }
    try {
      await options.handler(payload, msg);
      msg.ack();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof AppError && error.code === 'validation_failed') {
        return park(msg, attempt, `rejected by the handler: ${message}`);
      }
      if (attempt >= maxAttempts) return park(msg, attempt, message);
      log.warn({ err: error, subject: msg.subject, seq: msg.seq, attempt }, 'event handler failed; will retry');
      msg.nak(backoff[Math.min(attempt - 1, backoff.length - 1)]);
    }
  }

  const inFlight = new Set<Promise<void>>();
  const done = (async () => {
    for await (const msg of messages) {
      const running = handle(msg).catch((error: unknown) => {
        log.error({ err: error, subject: msg.subject, seq: msg.seq }, 'event handling failed unexpectedly');
      });
      inFlight.add(running);
      void running.finally(() => inFlight.delete(running));
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  })();

  return {
    stop: async () => {
      await messages.close();
      await done;
    },
  };
}
