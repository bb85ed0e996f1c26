import { describe, expect, it, vi } from 'vitest';
import { createEventQueue, type EventQueue } from '../src/backend/createEventQueue.ts';
import { createEventBatchSender } from '../src/backend/sendEventBatch.ts';
import { acceptAll, batchReply, errorReply, type RecordedRequest } from './createScriptedBackend.ts';
import { useScriptedLink } from './useScriptedLink.ts';

const link = useScriptedLink();

async function buildQueue(overrides: { maxQueueSize?: number; timeoutMs?: number } = {}): Promise<EventQueue> {
  const parts = await link.parts({ ...(overrides.timeoutMs ? { timeoutMs: overrides.timeoutMs } : {}) });
  await parts.identity.ensure();
  return createEventQueue({
    send: createEventBatchSender(parts.api),
    scheduler: link.scheduler,
    logger: link.log.logger,
    batchIntervalMs: 3000,
    maxBatchSize: 100,
    maxQueueSize: overrides.maxQueueSize ?? 10000,
    flushTimeoutMs: 5000,
  });
}

function emitMany(queue: EventQueue, count: number, from = 0) {
  for (let i = from; i < from + count; i++) {
    queue.emit('config.error', {
      error_type: 'server_error',
      error_message: `event ${i}`,
      status_code: 500,
      retry_in: 30,
    });
  }
}

const messagesOf = (request: RecordedRequest | undefined) => {
  const body = (request?.body ?? { events: [] }) as { events: Array<{ data: { error_message: string } }> };
  return body.events.map((e) => e.data.error_message);
};

describe('the event queue against a scripted backend', () => {
  it('makes no request while the queue is empty, then sends at most 100 per 3-second window', async () => {
    link.backend.respond(acceptAll);
    const queue = await buildQueue();
    queue.start();
    await link.scheduler.advance(9000);
    expect(link.backend.requests).toHaveLength(0);

    emitMany(queue, 250);
    expect(queue.stats()).toMatchObject({ queueSize: 250, totalEmitted: 250 });
    await link.scheduler.advance(3000);
    await vi.waitFor(() => expect(queue.stats().totalSent).toBe(100));
    expect(link.backend.requests).toHaveLength(1);
    expect(link.backend.requests[0]?.path).toMatch(/^\/api\/satellites\/[0-9a-f-]+\/events$/);
    expect(link.backend.requests[0]?.authorization).toMatch(/^Bearer sk_/);
    expect(messagesOf(link.backend.requests[0])[0]).toBe('event 0');

    await link.scheduler.advance(3000);
    await vi.waitFor(() => expect(queue.stats().totalSent).toBe(200));
    await link.scheduler.advance(3000);
    await vi.waitFor(() => expect(queue.stats().totalSent).toBe(250));
    expect(link.backend.requests.map((r) => messagesOf(r).length)).toEqual([100, 100, 50]);
    expect(queue.stats()).toMatchObject({ queueSize: 0, totalFailed: 0, totalDropped: 0, lastErrorAt: null });
    expect(queue.stats().lastBatchSentAt).not.toBeNull();

    await link.scheduler.advance(30000);
    expect(link.backend.requests).toHaveLength(3);
  });

  it('backs off 6, 12, 24, 48, 48 seconds on repeated 429s, keeps every event, and returns to 3 s after a success', async () => {
    link.backend.respond(() => errorReply(429, 'rate_limited'));
    const queue = await buildQueue();
    queue.start();
    emitMany(queue, 120);
    const windows: number[] = [];
    for (let i = 0; i < 5; i++) {
      await queue.runCycle();
      windows.push(queue.stats().batchIntervalMs);
      // The timer the queue set is the window it announces.
      expect(link.scheduler.pending()).toEqual([queue.stats().batchIntervalMs]);
    }
    expect(windows).toEqual([6000, 12000, 24000, 48000, 48000]);
    expect(queue.stats()).toMatchObject({ queueSize: 120, totalSent: 0, totalFailed: 0 });

    link.backend.respond(acceptAll);
    await queue.runCycle();
    expect(queue.stats()).toMatchObject({ batchIntervalMs: 3000, totalSent: 100, queueSize: 20 });
    expect(link.scheduler.pending()).toEqual([3000]);
    // The same events, oldest first, were retried: nothing lost or reordered by the put-back.
    expect(messagesOf(link.backend.requests.at(-1))[0]).toBe('event 0');
  });

  it('keeps events through 500s, timeouts and an unreachable backend, and delivers them afterwards', async () => {
    const queue = await buildQueue({ timeoutMs: 2000 });
    emitMany(queue, 10);

    link.backend.respond(() => errorReply(500, 'internal'));
    await queue.runCycle();
    expect(queue.stats()).toMatchObject({ queueSize: 10, totalSent: 0, batchIntervalMs: 3000 });
    expect(queue.stats().lastErrorAt).not.toBeNull();

    link.backend.respond(() => 'hang');
    const cycle = queue.runCycle();
    await link.backend.waitForRequests(2);
    // One batch in flight at a time: a cycle now sends nothing.
    await queue.runCycle();
    expect(link.backend.requests).toHaveLength(2);
    await link.scheduler.advance(2000);
    await cycle;
    expect(queue.stats()).toMatchObject({ queueSize: 10, totalSent: 0 });

    await link.backend.close();
    await queue.runCycle();
    expect(queue.stats()).toMatchObject({ queueSize: 10, totalSent: 0 });
    expect(link.log.text()).toContain('events kept for the next cycle');
  });

  it('drops and logs only the events the backend rejects in its partial reply', async () => {
    link.backend.respond((request) => batchReply(request, [1]));
    const queue = await buildQueue();
    emitMany(queue, 5);
    await queue.runCycle();
    expect(queue.stats()).toMatchObject({ queueSize: 0, totalSent: 4, totalFailed: 1 });
    const rejectedLine = link.log.lines().find((l) => l.msg === 'event rejected by the backend; dropped');
    expect(rejectedLine).toMatchObject({ event_type: 'config.error', reason: 'validation_failed: bad data' });
    await queue.runCycle();
    expect(link.backend.requests).toHaveLength(1);
  });

  it('drops a batch the backend refuses as a whole (400) instead of retrying it forever', async () => {
    link.backend.respond(() => errorReply(400, 'validation_failed'));
    const queue = await buildQueue();
    emitMany(queue, 3);
    await queue.runCycle();
    expect(queue.stats()).toMatchObject({ queueSize: 0, totalSent: 0, totalFailed: 3 });
  });

  it('keeps events on 401 and says what the operator must do when no token can re-register', async () => {
    link.backend.respond(() => errorReply(401, 'unauthenticated'));
    const queue = await buildQueue();
    emitMany(queue, 3);
    await queue.runCycle();
    await queue.runCycle();
    expect(queue.stats()).toMatchObject({ queueSize: 3, totalSent: 0, totalFailed: 0 });
    const operator = link.log.lines().filter((l) => String(l.msg).includes('SATELLITE_REGISTRATION_TOKEN'));
    // Said once, not on every cycle.
    expect(operator).toHaveLength(1);
  });

  it('holds at most 10,000 events: the oldest are dropped, counted and logged', async () => {
    link.backend.respond(acceptAll);
    const queue = await buildQueue();
    emitMany(queue, 10250);
    expect(queue.stats()).toMatchObject({ queueSize: 10000, totalEmitted: 10250, totalDropped: 250 });
    expect(link.log.lines().some((l) => l.msg === 'event queue full: oldest events dropped')).toBe(true);
    await queue.runCycle();
    expect(messagesOf(link.backend.requests[0])[0]).toBe('event 250');
  });

  it('never throws into the emitter, and refuses an invalid event without queueing it', async () => {
    const queue = await buildQueue();
    expect(() => queue.emit('config.error', { error_type: 'nonsense' } as never)).not.toThrow();
    expect(() => queue.emit('no.such.type' as never, {} as never)).not.toThrow();
    expect(queue.stats()).toMatchObject({ queueSize: 0, totalEmitted: 0 });
    expect(link.log.lines().filter((l) => l.msg === 'invalid satellite event not queued')).toHaveLength(2);
  });

  it('flushes 10,000 queued events on shutdown without the clock reaching the 5-second deadline', async () => {
    link.backend.respond(acceptAll);
    const queue = await buildQueue();
    queue.start();
    emitMany(queue, 10000);
    const began = link.scheduler.now();
    const result = await queue.shutdown();
    expect(result).toEqual({ sent: 10000, lost: 0 });
    expect(link.backend.requests).toHaveLength(100);
    // Only the scheduler's clock can time the flush out, and it never moved.
    expect(link.scheduler.now()).toBe(began);
    expect(queue.stats()).toMatchObject({ isShuttingDown: true, queueSize: 0 });
    // Accepting no more events once shutting down.
    emitMany(queue, 1);
    expect(queue.stats().totalEmitted).toBe(10000);
  });

  it('gives up at the 5-second deadline against a hanging backend and logs how many events are lost', async () => {
    link.backend.respond(() => 'hang');
    const queue = await buildQueue();
    queue.start();
    emitMany(queue, 10000);
    const shutdown = queue.shutdown();
    await link.backend.waitForRequests(1);
    await link.scheduler.advance(4999);
    let done = false;
    void shutdown.then(() => {
      done = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    await link.scheduler.advance(1);
    expect(await shutdown).toEqual({ sent: 0, lost: 10000 });
    expect(link.log.lines().find((l) => l.msg === 'shutdown: events not delivered are lost')).toMatchObject({
      lost: 10000,
      timed_out: true,
    });
  });
});
