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

/**
 * Handles several messages at once, typically in one database transaction, so a busy consumer commits
 * once per batch instead of once per message. All of them are acknowledged after it resolves; when it
 * throws, each message is handled alone by the single-message handler, so one poison message costs
 * its own retries and park, never its neighbours'.
 */
export type BatchEventHandler = (items: Array<{ payload: unknown; message: JsMsg }>) => Promise<void>;

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
  /** Handlers (or batches) running at once in this replica. 1 keeps the stream's order within the replica. */
  concurrency?: number;
  /** Hand messages that are already waiting to `handler` together, up to `maxMessages` (default 100). */
  batch?: { handler: BatchEventHandler; maxMessages?: number };
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

  /** A first delivery goes into a batch; a message already tried once is handled alone. */
  async function handleBatch(batch: JsMsg[]): Promise<void> {
    const batchHandler = options.batch?.handler;
    const items: Array<{ payload: unknown; message: JsMsg }> = [];
    const alone: JsMsg[] = [];
    for (const msg of batch) {
      if (!batchHandler || msg.info.deliveryCount > 1) {
        alone.push(msg);
        continue;
      }
      try {
        items.push({ payload: msg.json(), message: msg });
      } catch {
        alone.push(msg);
      }
    }
    if (batchHandler && items.length > 1) {
      try {
        await batchHandler(items);
        for (const item of items) item.message.ack();
      } catch (error) {
        log.warn({ err: error, size: items.length }, 'event batch failed; handling its messages one by one');
        alone.push(...items.map((item) => item.message));
      }
    } else {
      alone.push(...items.map((item) => item.message));
    }
    for (const msg of alone) await handle(msg);
  }

  const maxBatch = options.batch ? Math.max(1, options.batch.maxMessages ?? 100) : 1;
  const inFlight = new Set<Promise<void>>();
  let buffer: JsMsg[] = [];
  let flushScheduled = false;

  /** Starts the buffered messages as one batch. Only ever called with fewer than `concurrency` running. */
  function flush(): void {
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    const running = handleBatch(batch).catch((error: unknown) => {
      log.error({ err: error, size: batch.length }, 'event handling failed unexpectedly');
    });
    inFlight.add(running);
    void running.finally(() => inFlight.delete(running));
  }

  const done = (async () => {
    for await (const msg of messages) {
      // Wait for a free slot before taking the message in: a buffered message always has one waiting.
      while (inFlight.size >= concurrency) await Promise.race(inFlight);
      buffer.push(msg);
      if (buffer.length >= maxBatch) {
        flush();
      } else if (!flushScheduled) {
        // Messages that arrived together are yielded before the next turn of the event loop: a batch
        // is what is already here, never a wait for more.
        flushScheduled = true;
        setImmediate(() => {
          flushScheduled = false;
          flush();
        });
      }
    }
    flush();
    await Promise.all(inFlight);
  })();

  return {
    stop: async () => {
      await messages.close();
      await done;
    },
  };
}
