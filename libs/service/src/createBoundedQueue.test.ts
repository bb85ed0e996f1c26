import { AppError } from '@orbital/errors';
import { describe, expect, it } from 'vitest';
import { createBoundedQueue } from './createBoundedQueue.ts';

/** A job the test finishes when it wants, recording when it started. */
function controlledJob(log: string[], name: string) {
  let finish = () => {};
  const work = () =>
    new Promise<string>((resolve) => {
      log.push(`start ${name}`);
      finish = () => resolve(name);
    });
  return { work, finish: () => finish() };
}

/** A queue of `jobs`, one at a time, ten waiting for up to a minute, but for what the test sets. */
const queueWith = (options: Partial<Parameters<typeof createBoundedQueue>[0]>) =>
  createBoundedQueue({ what: 'jobs', concurrency: 1, maxWaiting: 10, maxWaitMs: 60_000, ...options });

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('createBoundedQueue', () => {
  it('runs at most `concurrency` jobs at once, the rest in the order they came', async () => {
    const log: string[] = [];
    const queue = queueWith({ concurrency: 2 });
    const jobs = ['a', 'b', 'c', 'd'].map((name) => controlledJob(log, name));
    const results = jobs.map((job) => queue.run(job.work));
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    expect(queue.load()).toEqual({ running: 2, waiting: 2 });
    jobs[1]?.finish();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    jobs[0]?.finish();
    jobs[2]?.finish();
    await settle();
    jobs[3]?.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect(queue.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses at once with unavailable and a time to come back when the waiting places are taken', async () => {
    const log: string[] = [];
    const queue = queueWith({ what: 'key checks', maxWaiting: 1, expectedJobMs: 500, random: () => 0 });
    const first = controlledJob(log, 'first');
    const second = controlledJob(log, 'second');
    const running = queue.run(first.work);
    const waiting = queue.run(second.work);
    const refused = await queue.run(async () => 'never').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    // Two jobs ahead and this one, one at a time, at half a second each.
    expect(refused).toMatchObject({
      code: 'unavailable',
      message: 'Too many key checks at once; try again in 2 s',
      details: { reason: 'busy', retry_after_seconds: 2 },
    });
    first.finish();
    await settle();
    second.finish();
    expect([await running, await waiting]).toEqual(['first', 'second']);
  });

  it('refuses a job whose turn comes after maxWaitMs instead of starting it, and goes on with the next', async () => {
    let clock = 0;
    const log: string[] = [];
    const queue = queueWith({ maxWaiting: 5, maxWaitMs: 1000, now: () => clock });
    const slow = controlledJob(log, 'slow');
    const late = controlledJob(log, 'late');
    const fresh = controlledJob(log, 'fresh');
    const slowRun = queue.run(slow.work);
    const lateRun = queue.run(late.work).catch((error: AppError) => error.code);
    clock = 900;
    const freshRun = queue.run(fresh.work);
    clock = 1500;
    slow.finish();
    await settle();
    expect(await lateRun).toBe('unavailable');
    expect(log).toEqual(['start slow', 'start fresh']);
    fresh.finish();
    expect([await slowRun, await freshRun]).toEqual(['slow', 'fresh']);
  });

  it('frees its place when a job fails', async () => {
    const queue = queueWith({ maxWaiting: 0, maxWaitMs: 1000 });
    await expect(queue.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue.run(async () => 'after')).toBe('after');
  });
});
