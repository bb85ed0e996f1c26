import { AckPolicy, DeliverPolicy, type JsMsg, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import {
  type EventDef,
  type EventPayloadOf,
  eventsFilter,
  isEventSubject,
  parkedEventsStream,
  streamOfEvents,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { z } from 'zod';
import type { Bus } from './createBus.ts';
import { ensureStream } from './ensureStream.ts';
import { isJetStreamNotFound } from './jetStreamErrors.ts';
import { parkMessage } from './parkMessage.ts';
import { durableName, streamName } from './streamName.ts';

/**
 * Handles one message, its payload already checked against its event's schema (one that breaks it is
 * parked without reaching the handler). Resolve only once the work is committed: the message is
 * acknowledged after. Throw to have it redelivered later; throw an AppError `validation_failed` when
 * no retry can ever succeed, and it is parked at once.
 */
export type EventHandler<P = unknown> = (payload: P, message: JsMsg) => Promise<void>;

/**
 * Handles several messages at once, typically in one database transaction, so a busy consumer commits
 * once per batch instead of once per message. All of them are acknowledged after it resolves, except
 * those it gives back as `alone` (it could not take them: they are handled by the single-message
 * handler, which parks what can never succeed); when it throws, each message is handled alone, so one
 * poison message costs its own retries and park, never its neighbours'.
 */
export type BatchEventHandler<P = unknown> = (
  items: Array<{ payload: P; message: JsMsg }>,
) => Promise<void | { alone?: JsMsg[] }>;

/** How a consumer treats a failure: tried again until it succeeds, or parked at once. */
export type FailureKind = 'transient' | 'poison';

export type ConsumeOptions<E extends EventDef = EventDef> = {
  /** The events to read, all of one stream; the consumer filters on the subjects they share. */
  events: readonly E[];
  /** Durable consumer name: one per consuming service and purpose, shared by its replicas. */
  durable: string;
  handler: EventHandler<EventPayloadOf<E>>;
  logger: Logger;
  /** Attempts that failed for no known reason before a message is parked on `parked.<durable>` (EVENTS_PARKED). */
  maxAttempts?: number;
  /** Redelivery delay after the 1st, 2nd, ... failed attempt; the last one repeats. */
  backoffMs?: number[];
  /** How long JetStream waits for news of a message before giving it to someone else (renewed while held). */
  ackWaitMs?: number;
  /** Handlers (or batches) running at once in this replica. 1 keeps the stream's order within the replica. */
  concurrency?: number;
  /** Hand messages that are already waiting to `handler` together, up to `maxMessages` (default 100). */
  batch?: { handler: BatchEventHandler<EventPayloadOf<E>>; maxMessages?: number };
  /**
   * Tells the failures of this consumer's own dependencies apart (its database's, for example):
   * `transient` is tried again in place, with back-off, for as long as it takes; `poison` is parked at
   * once. `unavailable` (a service, NATS or the database away) is transient and `validation_failed`
   * poison without it; anything else counts against `maxAttempts`.
   */
  classifyError?: (error: unknown) => FailureKind | undefined;
  /**
   * Messages given out and not yet acknowledged, for this durable (JetStream's max_ack_pending): the
   * server sends no more until some are done, so a backlog of any size flows through a bounded window.
   */
  maxPending?: number;
  /** Longest pause between two tries of a transient failure (they start at 250 ms and double). */
  maxRetryDelayMs?: number;
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
 * Deliveries of one message without an outcome (the process died or was stopped while holding it)
 * before it is parked: a message that kills its consumer every time must not stop the others for good.
 * Transient failures are retried in place and never count here.
 */
const maxDeliveries = 25;

/**
 * Consumes a durable consumer, so a service that was down reads everything it missed when it comes
 * back, and its replicas share the messages. A message is acknowledged only after its handler resolved.
 *
 * Failures are told apart. A transient one (a dependency unavailable, a lost race) is tried again in
 * place, with back-off, for as long as it takes: the message stays held (its lease renewed), so an
 * outage of any length loses nothing, parks nothing and redelivers nothing. A message that can never
 * succeed (a payload that breaks its contract, a constraint violation) is parked at once (copied to
 * EVENTS_PARKED with why, then removed from this consumer's way). Any other failure is redelivered after
 * a back-off delay while later messages go on, and parked after `maxAttempts`. The server-side delivery
 * limit is unlimited on purpose: JetStream's own limit would drop a message silently, we park it instead.
 *
 * Flow control: the server gives out at most `maxPending` messages at a time; every message this
 * replica holds (waiting, or being handled) has its lease renewed until it is done, so a backlog never
 * expires into redeliveries, however slow the work or long the outage.
 */
export async function consumeDurable<E extends EventDef>(bus: Bus, typed: ConsumeOptions<E>): Promise<DurableConsumer> {
  const maxAttempts = typed.maxAttempts ?? 5;
  const options = untyped(bus, typed, maxAttempts);
  const backoff = options.backoffMs?.length ? options.backoffMs : defaultBackoffMs;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const maxBatch = options.batch ? Math.max(1, options.batch.maxMessages ?? 100) : 1;
  const maxPending = Math.max(options.maxPending ?? Math.max(1000, maxBatch * concurrency * 4), maxBatch);
  const maxRetryDelay = options.maxRetryDelayMs ?? 30000;
  const ackWaitMs = options.ackWaitMs ?? 30000;
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
    ack_wait: nanos(ackWaitMs),
    max_ack_pending: maxPending,
  };
  try {
    await jsm.consumers.info(stream, durable);
    await jsm.consumers.update(stream, durable, config);
  } catch (error) {
    if (!isJetStreamNotFound(error)) throw error;
    await jsm.consumers.add(stream, config);
  }
  const consumer = await jetstream(bus.connection).consumers.get(stream, durable);
  const messages = await consumer.consume({ max_messages: Math.min(maxPending, Math.max(100, maxBatch * 2)) });

  let stopping = false;
  const stopWaiters = new Set<() => void>();
  /** Resolves after `ms`, or at once when the consumer stops. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stopWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      stopWaiters.add(done);
    });

  const classify = (error: unknown) => classifyFailure(options.classifyError, error);

  /** One warning when a dependency goes away, one every 30 s while it stays away, one when it is back. */
  let outageSince: number | null = null;
  let lastOutageLog = 0;
  const noteTransient = (error: unknown, size: number) => {
    const now = Date.now();
    if (outageSince === null) outageSince = now;
    if (now - lastOutageLog >= 30000) {
      lastOutageLog = now;
      log.warn(
        { err: error, waiting_seconds: Math.round((now - outageSince) / 1000), size },
        'a dependency is unavailable; the events wait and are tried again',
      );
    }
  };
  const noteRecovered = () => {
    if (outageSince === null) return;
    log.info({ after_seconds: Math.round((Date.now() - outageSince) / 1000) }, 'events flow again');
    outageSince = null;
    lastOutageLog = 0;
  };
  const retryDelay = (retry: number) => Math.min(maxRetryDelay, 250 * 2 ** Math.min(retry, 16));

  /** Copies the message to EVENTS_PARKED, then takes it out of the way; tried again while JetStream is away. */
  async function park(msg: JsMsg, attempts: number, reason: string): Promise<void> {
    for (let retry = 0; ; retry++) {
      try {
        await parkMessage(bus, msg, { durable: options.durable, attempts, reason });
        msg.term(reason.slice(0, 200));
        log.error({ subject: msg.subject, seq: msg.seq, attempts, reason }, 'event parked after its last attempt');
        return;
      } catch (error) {
        if (stopping) return msg.nak();
        if (retry === 0) log.warn({ err: error, subject: msg.subject, seq: msg.seq }, 'could not park an event yet');
        await pause(retryDelay(retry));
      }
    }
  }

  /** One message alone: tried until it succeeds, is parked, or is handed back for a later redelivery. */
  async function handle(msg: JsMsg): Promise<void> {
    const attempt = msg.info.deliveryCount;
    if (attempt > maxDeliveries) {
      return park(msg, attempt - 1, 'no outcome after many deliveries (the consumer died or hung each time)');
    }
    let payload: unknown;
    try {
      payload = options.payloadOf(msg);
    } catch {
      return park(msg, attempt, 'the payload is not JSON');
    }
    for (let retry = 0; ; retry++) {
      try {
        await options.handler(payload, msg);
        msg.ack();
        if (retry > 0) noteRecovered();
        return;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const kind = classify(error);
        if (kind === 'poison') return park(msg, attempt, `rejected by the handler: ${message}`);
        if (kind === 'transient') {
          if (stopping) return msg.nak();
          noteTransient(error, 1);
          await pause(retryDelay(retry));
          if (stopping) return msg.nak();
          continue;
        }
        if (attempt >= maxAttempts) return park(msg, attempt, message);
        log.warn({ err: error, subject: msg.subject, seq: msg.seq, attempt }, 'event handler failed; will retry');
        msg.nak(backoff[Math.min(attempt - 1, backoff.length - 1)]);
        return;
      }
    }
  }

  /**
   * Messages taken together go to the batch handler: all acknowledged after it resolves; tried again
   * as a whole while it fails transiently; handled one by one when it fails otherwise, so one poison
   * message costs its own retries and park, never its neighbours'.
   */
  async function handleBatch(batch: JsMsg[]): Promise<void> {
    const batchHandler = options.batch?.handler;
    const items: Array<{ payload: unknown; message: JsMsg }> = [];
    const alone: JsMsg[] = [];
    for (const msg of batch) {
      if (!batchHandler || msg.info.deliveryCount > maxDeliveries) {
        alone.push(msg);
        continue;
      }
      try {
        items.push({ payload: options.payloadOf(msg), message: msg });
      } catch {
        alone.push(msg);
      }
    }
    if (batchHandler && items.length > 1) {
      for (let retry = 0; ; retry++) {
        try {
          const outcome = await batchHandler(items);
          const giveBack = new Set(outcome?.alone ?? []);
          for (const item of items) {
            if (giveBack.has(item.message)) alone.push(item.message);
            else item.message.ack();
          }
          if (retry > 0) noteRecovered();
          break;
        } catch (error) {
          if (classify(error) === 'transient') {
            if (stopping) {
              for (const item of items) item.message.nak();
              break;
            }
            noteTransient(error, items.length);
            await pause(retryDelay(retry));
            if (!stopping) continue;
            for (const item of items) item.message.nak();
            break;
          }
          log.warn({ err: error, size: items.length }, 'event batch failed; handling its messages one by one');
          alone.push(...items.map((item) => item.message));
          break;
        }
      }
    } else {
      alone.push(...items.map((item) => item.message));
    }
    for (const msg of alone) {
      if (stopping) msg.nak();
      else await handle(msg);
    }
  }

  // Every message this replica holds keeps its lease while it waits or is handled.
  const held = new Set<JsMsg>();
  const waiting: JsMsg[] = [];
  const renew = setInterval(
    () => {
      for (const msg of held) msg.working();
    },
    Math.max(1000, Math.floor(ackWaitMs / 3)),
  );
  renew.unref();

  let readerDone = false;
  const wakers = new Set<() => void>();
  const wake = () => {
    for (const w of [...wakers]) w();
  };
  const reader = (async () => {
    for await (const msg of messages) {
      held.add(msg);
      waiting.push(msg);
      wake();
    }
    readerDone = true;
    wake();
  })();

  /**
   * While a batch waits on its handler's database and acknowledgements, the messages next in line are
   * decoded (parsed and checked against their events), one per turn of the event loop so the batch's
   * own replies are never held up by more than one message's worth. The waits are where this process
   * is idle: on two cores shared with the database, decoding the next batch there instead of after
   * shortens each turn by the decoding. Decoding has no effect but the result, so a message decoded
   * ahead is handled exactly as one decoded in its turn.
   */
  async function prepareAhead(handling: Promise<void>): Promise<void> {
    let done = false;
    handling.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    for (let index = 0; index < maxBatch; ) {
      await new Promise((resolve) => setImmediate(resolve));
      if (done || stopping) return;
      const msg = waiting[index];
      if (msg) {
        options.prepare(msg);
        index++;
        continue;
      }
      // Nothing more in line yet: the next arrival, or the end of the batch, whichever comes first.
      await new Promise<void>((resolve) => {
        const next = () => {
          wakers.delete(next);
          resolve();
        };
        wakers.add(next);
        void handling.then(next, next);
      });
    }
  }

  async function worker(): Promise<void> {
    for (;;) {
      if (stopping) return;
      if (waiting.length === 0) {
        if (readerDone) return;
        await new Promise<void>((resolve) => {
          const done = () => {
            wakers.delete(done);
            resolve();
          };
          wakers.add(done);
        });
        // Messages that arrived together are yielded before the next turn of the event loop: a batch is
        // what is already here, never a wait for more.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      const batch = waiting.splice(0, maxBatch);
      try {
        const handling = handleBatch(batch);
        void prepareAhead(handling);
        await handling;
      } catch (error) {
        log.error({ err: error, size: batch.length }, 'event handling failed unexpectedly');
      } finally {
        for (const msg of batch) held.delete(msg);
      }
    }
  }
  const workers = Array.from({ length: concurrency }, () => worker());

  return {
    stop: async () => {
      stopping = true;
      for (const done of [...stopWaiters]) done();
      await messages.close();
      wake();
      await reader;
      await Promise.all(workers);
      // What was taken in and not started goes back at once, for another replica or the next start.
      for (const msg of waiting.splice(0)) {
        held.delete(msg);
        msg.nak();
      }
      clearInterval(renew);
    },
  };
}

/**
 * `unavailable` (a service, NATS or the database away) is transient and `validation_failed` poison,
 * unless the consumer's own classifier says otherwise; anything else is neither.
 */
function classifyFailure(own: ConsumeOptions['classifyError'], error: unknown): FailureKind | undefined {
  const kind = own?.(error);
  if (kind) return kind;
  if (error instanceof AppError) {
    if (error.code === 'unavailable') return 'transient';
    if (error.code === 'validation_failed') return 'poison';
  }
  return undefined;
}

type UntypedOptions = Omit<ConsumeOptions, 'events' | 'handler' | 'batch'> & {
  stream: string;
  filterSubjects: string[];
  handler: EventHandler;
  batch?: { handler: BatchEventHandler; maxMessages?: number };
  /** Decodes a message ahead of its turn; the handlers take the result instead of decoding it again. */
  prepare(message: JsMsg): void;
  /** The message's JSON payload, as decoded ahead or now; throws when it is not JSON. */
  payloadOf(message: JsMsg): unknown;
};

/** The elements of a batch message, each with its place in the message. */
type Elements = Array<{ index: number; element: unknown }>;

/**
 * A message checked against its event: the payload for the handler and, for a batch, its valid
 * elements (the payload's `events`) and those that broke their contract.
 */
type Decoded = {
  payload: unknown;
  elements?: Elements;
  broken: Array<{ index: number; element: unknown; reason: string }>;
};

const issuesOf = (error: { issues: Array<{ path: PropertyKey[]; message: string }> }) =>
  error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');

/**
 * The consumer's stream and filter from its events, and handlers that check each payload against the
 * event its subject names first: a message that fits no listed event, or breaks its event's schema, is
 * refused as `validation_failed`, which parks it at once. In a batch such a message is given back to be
 * handled alone (and parked), so the rest of the batch goes on.
 *
 * A message that carries a batch of events (an event defined with `batchOf`) is settled event by event:
 * an event that breaks its contract is parked alone (as a batch of one, so a replay goes where the
 * original went) and the handler gets the others; when the handler fails for good on the batch, each
 * event is handled on its own, so only the ones that fail are parked, after their last attempt.
 */
function untyped<E extends EventDef>(bus: Bus, options: ConsumeOptions<E>, maxAttempts: number): UntypedOptions {
  const prefix = bus.prefix ? `${bus.prefix}.` : '';
  const decode = (payload: unknown, message: JsMsg): Decoded => {
    const subject = message.subject.startsWith(prefix) ? message.subject.slice(prefix.length) : message.subject;
    const def = options.events.find((event) => isEventSubject(event, subject));
    if (!def) throw new AppError('validation_failed', `No event of this consumer has the subject ${subject}`);
    if (def.batchOf) return decodeBatch(def, def.batchOf.payload, payload);
    const parsed = def.payload.safeParse(payload);
    if (!parsed.success) {
      throw new AppError('validation_failed', `The payload breaks the contract of ${def.subject}`, {
        details: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      });
    }
    return { payload: parsed.data, broken: [] };
  };

  /** Each element checked on its own; the envelope as a whole must still be a batch. */
  const decodeBatch = (def: EventDef, element: z.ZodType, payload: unknown): Decoded => {
    const events = (payload as { events?: unknown } | null)?.events;
    if (!Array.isArray(events) || events.length === 0) {
      throw new AppError('validation_failed', `The payload breaks the contract of ${def.subject}`, {
        details: [{ path: 'events', message: 'must be a non-empty array of events' }],
      });
    }
    const elements: Elements = [];
    const broken: Decoded['broken'] = [];
    events.forEach((raw, index) => {
      const parsed = element.safeParse(raw);
      if (parsed.success) elements.push({ index, element: parsed.data });
      else {
        const reason = `event ${index} breaks the contract of ${def.subject}: ${issuesOf(parsed.error)}`;
        broken.push({ index, element: raw, reason });
      }
    });
    return { payload: { events: elements.map((e) => e.element) }, elements, broken };
  };

  /**
   * The events of each delivery already parked: a batch tried again in place (a transient failure of
   * the others) is decoded again, and needs no second trip to the parked stream for them. A batch
   * delivered again is a new message, and parkMessage itself parks each event once.
   */
  const parkedParts = new WeakMap<JsMsg, Set<number>>();

  /**
   * Messages decoded ahead of their turn (prepare), each taken once: a handler tried again in place
   * decodes afresh, so it never sees objects an earlier try may have changed. A message that fails to
   * decode is not kept; it fails again in its turn, where the failure is handled.
   */
  const prepared = new WeakMap<JsMsg, { payload: unknown; decoded?: Decoded }>();
  const prepare = (message: JsMsg) => {
    if (prepared.has(message)) return;
    try {
      const payload = message.json();
      prepared.set(message, { payload, decoded: decode(payload, message) });
    } catch {
      // Decoded again, and refused, in its turn.
    }
  };
  const payloadOf = (message: JsMsg) => {
    const ahead = prepared.get(message);
    return ahead ? ahead.payload : message.json();
  };
  const decodeOnce = (payload: unknown, message: JsMsg): Decoded => {
    const ahead = prepared.get(message);
    prepared.delete(message);
    return ahead?.decoded && ahead.payload === payload ? ahead.decoded : decode(payload, message);
  };

  const parkBroken = async (message: JsMsg, broken: Decoded['broken']) => {
    for (const part of broken) {
      const done = parkedParts.get(message) ?? new Set<number>();
      if (done.has(part.index)) continue;
      const parked = await parkMessage(bus, message, {
        durable: options.durable,
        attempts: message.info.deliveryCount,
        reason: part.reason,
        part: { index: part.index, data: JSON.stringify({ events: [part.element] }) },
      });
      done.add(part.index);
      parkedParts.set(message, done);
      const where = { subject: message.subject, seq: message.seq, event_index: part.index };
      if (parked) options.logger.error({ ...where, reason: part.reason }, 'event of a batch parked alone');
      else options.logger.debug(where, 'event of a batch was already parked');
    }
  };

  const typedHandler = options.handler as EventHandler;
  /**
   * A batch message whose batch failed for good: each event alone. A transient failure still retries
   * the whole message (what was stored is keyed by event id, so nothing is stored twice); an event that
   * can never succeed, or fails on the message's last attempt, is parked alone and the others go on.
   */
  const settleOneByOne = async (message: JsMsg, elements: Elements, batchError: unknown) => {
    options.logger.warn(
      { err: batchError, subject: message.subject, seq: message.seq, size: elements.length },
      'event batch failed; handling its events one by one',
    );
    for (const { index, element } of elements) {
      try {
        await typedHandler({ events: [element] }, message);
      } catch (error) {
        const kind = classifyFailure(options.classifyError, error);
        if (kind === 'transient') throw error;
        if (kind !== 'poison' && message.info.deliveryCount < maxAttempts) throw error;
        const why = error instanceof Error ? error.message : String(error);
        await parkBroken(message, [{ index, element, reason: `event ${index} of the batch: ${why}` }]);
      }
    }
  };

  const handle = async (payload: unknown, message: JsMsg) => {
    const { payload: checked, elements, broken } = decodeOnce(payload, message);
    await parkBroken(message, broken);
    if (!elements) return typedHandler(checked, message);
    if (elements.length === 0) return;
    try {
      await typedHandler(checked, message);
    } catch (error) {
      if (classifyFailure(options.classifyError, error) === 'transient') throw error;
      await settleOneByOne(message, elements, error);
    }
  };

  const { events, handler, batch, ...rest } = options;
  return {
    ...rest,
    stream: streamOfEvents(events).name,
    filterSubjects: [eventsFilter(events)],
    handler: handle,
    prepare,
    payloadOf,
    ...(batch
      ? {
          batch: {
            ...batch,
            handler: async (items) => {
              const checked: Array<{ payload: unknown; message: JsMsg }> = [];
              const alone: JsMsg[] = [];
              for (const item of items) {
                let decoded: Decoded;
                try {
                  decoded = decodeOnce(item.payload, item.message);
                } catch {
                  alone.push(item.message);
                  continue;
                }
                await parkBroken(item.message, decoded.broken);
                // Every event of it broke its contract: parked, nothing left to store.
                if (decoded.elements?.length === 0) continue;
                checked.push({ payload: decoded.payload, message: item.message });
              }
              const result = checked.length > 0 ? await (batch.handler as BatchEventHandler)(checked) : undefined;
              return { alone: [...alone, ...(result?.alone ?? [])] };
            },
          },
        }
      : {}),
  };
}
