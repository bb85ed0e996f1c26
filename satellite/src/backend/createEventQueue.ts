import type { SatelliteEvent } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { buildSatelliteEvent } from '../events/buildSatelliteEvent.ts';
import type { EventSink } from '../events/eventSink.ts';
import type { Scheduler, SchedulerTimer } from './scheduler.ts';

/** What sending one batch came to, by HTTP status, never by message text. */
export type SendOutcome =
  | { kind: 'sent'; rejected: { index: number; id: string | null; message: string }[] }
  /** 400 for the batch as a whole: the backend will never take these events. */
  | { kind: 'refused'; status: number; message: string }
  | { kind: 'unauthorized' }
  | { kind: 'rate_limited'; retryAfterMs: number | null }
  | { kind: 'server_error'; status: number; message: string }
  | { kind: 'unreachable'; message: string }
  | { kind: 'aborted' };

/** The event queue's running statistics, plus the interval now in force (it grows under 429s). */
export type EventQueueStats = {
  queueSize: number;
  totalEmitted: number;
  totalSent: number;
  totalFailed: number;
  totalDropped: number;
  lastBatchSentAt: string | null;
  lastErrorAt: string | null;
  isShuttingDown: boolean;
  batchIntervalMs: number;
};

export type EventQueue = EventSink & {
  start(): void;
  stats(): EventQueueStats;
  /** Runs one batch cycle now (the timer does this every interval); resolves when it is done. */
  runCycle(): Promise<void>;
  /**
   * At shutdown: stop accepting events, cancel the next batch, send what is queued until the queue is
   * empty or `flushTimeoutMs` passes; resolves with what was sent and what was lost.
   */
  shutdown(): Promise<{ sent: number; lost: number }>;
};

export type EventQueueOptions = {
  send(events: SatelliteEvent[], signal: AbortSignal): Promise<SendOutcome>;
  scheduler: Scheduler;
  logger: Logger;
  batchIntervalMs: number;
  maxBatchSize: number;
  maxQueueSize: number;
  flushTimeoutMs: number;
};

/** 429 backoff: the window doubles up to this many times (3 s -> 6, 12, 24, 48 s). */
const maxRateLimitSteps = 4;

/** A FIFO with O(1) take from the front and put-back of a batch that could not be sent. */
function createDeque<T>() {
  let items: T[] = [];
  let head = 0;
  const compact = () => {
    if (head > 4096 && head * 2 > items.length) {
      items = items.slice(head);
      head = 0;
    }
  };
  return {
    size: () => items.length - head,
    push(item: T) {
      items.push(item);
    },
    dropOldest(): T | undefined {
      if (head >= items.length) return undefined;
      const item = items[head];
      items[head] = undefined as T;
      head++;
      compact();
      return item;
    },
    take(n: number): T[] {
      const batch = items.slice(head, head + n);
      for (let i = head; i < head + batch.length; i++) items[i] = undefined as T;
      head += batch.length;
      compact();
      return batch;
    },
    putBack(batch: T[]) {
      if (head >= batch.length) {
        head -= batch.length;
        for (let i = 0; i < batch.length; i++) items[head + i] = batch[i] as T;
      } else {
        items = [...batch, ...items.slice(head)];
        head = 0;
      }
    },
  };
}

/**
 * The satellite's event queue: events are
 * validated and queued in memory, sent at most `maxBatchSize` at a time every `batchIntervalMs`, one
 * batch in flight at a time, no request when the queue is empty. Beyond `maxQueueSize` the oldest are
 * dropped and counted. Per outcome: per-event rejects are dropped and logged; 401, 5xx, timeouts and
 * unreachable backends keep the batch for the next cycle; 429 keeps it and doubles the window up to
 * 48 s, back to the base window after the next success. `emit` never throws.
 */
export function createEventQueue(options: EventQueueOptions): EventQueue {
  const { scheduler, logger } = options;
  const queue = createDeque<SatelliteEvent>();
  const sends = new AbortController();
  let timer: SchedulerTimer | undefined;
  let inFlight: Promise<SendOutcome> | undefined;
  let inFlightSize = 0;
  let started = false;
  let shuttingDown = false;
  let shutdownResult: Promise<{ sent: number; lost: number }> | undefined;
  let rateLimitSteps = 0;
  let retryAfterMs = 0;
  let droppedSinceLog = 0;
  const stats = {
    totalEmitted: 0,
    totalSent: 0,
    totalFailed: 0,
    totalDropped: 0,
    lastBatchSentAt: null as string | null,
    lastErrorAt: null as string | null,
  };

  const intervalMs = () => {
    const window = options.batchIntervalMs * 2 ** rateLimitSteps;
    if (rateLimitSteps === 0) return window;
    // A Retry-After longer than the step is honoured, up to the top of the schedule.
    return Math.min(options.batchIntervalMs * 2 ** maxRateLimitSteps, Math.max(window, retryAfterMs));
  };
  const isoNow = () => new Date(scheduler.now()).toISOString();

  const trim = () => {
    while (queue.size() > options.maxQueueSize) {
      queue.dropOldest();
      stats.totalDropped++;
      droppedSinceLog++;
    }
  };

  const reportDrops = () => {
    if (droppedSinceLog === 0) return;
    logger.warn(
      { dropped: droppedSinceLog, total_dropped: stats.totalDropped, max_queue_size: options.maxQueueSize },
      'event queue full: oldest events dropped',
    );
    droppedSinceLog = 0;
  };

  const sendBatch = async (batch: SatelliteEvent[]): Promise<SendOutcome> => {
    let outcome: SendOutcome;
    try {
      outcome = await options.send(batch, sends.signal);
    } catch (error) {
      outcome = { kind: 'unreachable', message: (error as Error).message };
    }
    switch (outcome.kind) {
      case 'sent': {
        const rejected = outcome.rejected.length;
        stats.totalSent += batch.length - rejected;
        stats.totalFailed += rejected;
        stats.lastBatchSentAt = isoNow();
        rateLimitSteps = 0;
        retryAfterMs = 0;
        for (const reject of outcome.rejected) {
          const event = batch[reject.index];
          logger.error(
            { event_id: reject.id ?? event?.id ?? null, event_type: event?.type ?? null, reason: reject.message },
            'event rejected by the backend; dropped',
          );
        }
        break;
      }
      case 'refused':
        stats.totalFailed += batch.length;
        stats.lastErrorAt = isoNow();
        logger.error(
          { status: outcome.status, reason: outcome.message, events: batch.length },
          'event batch refused by the backend; dropped',
        );
        break;
      case 'rate_limited':
        queue.putBack(batch);
        trim();
        stats.lastErrorAt = isoNow();
        rateLimitSteps = Math.min(maxRateLimitSteps, rateLimitSteps + 1);
        retryAfterMs = outcome.retryAfterMs ?? 0;
        logger.warn({ next_batch_in_ms: intervalMs(), queued: queue.size() }, 'event batch rate limited; backing off');
        break;
      case 'unauthorized':
        queue.putBack(batch);
        trim();
        stats.lastErrorAt = isoNow();
        logger.warn({ queued: queue.size() }, 'event batch refused with 401; events kept for the next cycle');
        break;
      case 'server_error':
      case 'unreachable':
        queue.putBack(batch);
        trim();
        stats.lastErrorAt = isoNow();
        logger.warn(
          {
            reason: outcome.kind === 'server_error' ? `HTTP ${outcome.status}: ${outcome.message}` : outcome.message,
            queued: queue.size(),
          },
          'event batch not delivered; events kept for the next cycle',
        );
        break;
      case 'aborted':
        queue.putBack(batch);
        trim();
        break;
    }
    return outcome;
  };

  const schedule = () => {
    if (!started || shuttingDown) return;
    scheduler.clearTimeout(timer);
    timer = scheduler.setTimeout(() => void runCycle(), intervalMs());
  };

  const runCycle = async (): Promise<void> => {
    if (inFlight || shuttingDown) return;
    // A cycle run by hand replaces the one the timer would have run.
    scheduler.clearTimeout(timer);
    timer = undefined;
    try {
      reportDrops();
      if (queue.size() === 0) return;
      const batch = queue.take(options.maxBatchSize);
      inFlightSize = batch.length;
      inFlight = sendBatch(batch);
      await inFlight;
    } finally {
      inFlight = undefined;
      inFlightSize = 0;
      schedule();
    }
  };

  return {
    emit(type, data) {
      try {
        if (shuttingDown) return;
        const built = buildSatelliteEvent(type, data, new Date(scheduler.now()));
        if (!built.ok) {
          logger.error({ event_type: type, issues: built.issues }, 'invalid satellite event not queued');
          return;
        }
        queue.push(built.event);
        stats.totalEmitted++;
        if (queue.size() > options.maxQueueSize) {
          const first = droppedSinceLog === 0;
          trim();
          // The first drop of a burst is reported at once, the rest once per cycle.
          if (first) reportDrops();
        }
      } catch (error) {
        try {
          logger.error({ err: error, event_type: type }, 'satellite event could not be queued');
        } catch {
          // Emitting is fire-and-forget: nothing may reach the emitter.
        }
      }
    },
    start() {
      if (started) return;
      started = true;
      schedule();
    },
    stats: () => ({
      queueSize: queue.size(),
      ...stats,
      isShuttingDown: shuttingDown,
      batchIntervalMs: intervalMs(),
    }),
    runCycle,
    shutdown() {
      if (shutdownResult) return shutdownResult;
      shuttingDown = true;
      scheduler.clearTimeout(timer);
      timer = undefined;
      const sentBefore = stats.totalSent;
      shutdownResult = (async () => {
        let expired = false;
        let handle: SchedulerTimer | undefined;
        const deadline = new Promise<void>((resolve) => {
          handle = scheduler.setTimeout(() => {
            expired = true;
            sends.abort();
            resolve();
          }, options.flushTimeoutMs);
        });
        const flushing = (async () => {
          if (inFlight) await inFlight;
          while (queue.size() > 0 && !expired) {
            const batch = queue.take(options.maxBatchSize);
            inFlightSize = batch.length;
            const outcome = await sendBatch(batch);
            inFlightSize = 0;
            // Anything but a delivered (or definitively refused) batch ends the flush: there is no
            // time left for backoff.
            if (outcome.kind !== 'sent' && outcome.kind !== 'refused') break;
          }
        })();
        await Promise.race([flushing, deadline]);
        scheduler.clearTimeout(handle);
        reportDrops();
        // A batch whose request has not come back by the deadline is lost with the rest.
        const lost = queue.size() + inFlightSize;
        const sent = stats.totalSent - sentBefore;
        if (lost > 0) {
          logger.error(
            { lost, sent, timed_out: expired, flush_timeout_ms: options.flushTimeoutMs },
            'shutdown: events not delivered are lost',
          );
        } else {
          logger.info({ sent }, 'shutdown: event queue flushed');
        }
        return { sent, lost };
      })();
      return shutdownResult;
    },
  };
}
