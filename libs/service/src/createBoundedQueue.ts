import { AppError } from '@orbital/errors';

export type BoundedQueue = {
  /**
   * Runs `work` when one of the queue's places is free. Refused at once with `unavailable` (and how long
   * to wait, `details.retry_after_seconds`) when every place is taken and `maxWaiting` jobs wait already,
   * or when its turn comes later than `maxWaitMs` after it was asked for.
   */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Jobs running and jobs waiting now. */
  load(): { running: number; waiting: number };
};

type Waiting = { since: number; start(): void; refuse(error: AppError): void };

/**
 * A queue for costly work (an Argon2 run takes a core for a fifth of a second) with a bound on each side:
 * at most `concurrency` jobs run at once, so the rest of the process keeps its share of the machine, and
 * at most `maxWaiting` wait, so a burst is answered at once with a time to come back instead of piling up
 * until every caller times out. A job whose turn comes after `maxWaitMs` is refused rather than started:
 * its caller has most likely given up, and work done for nobody (a registration whose key nobody reads)
 * is worse than none. The time to come back is the queue's backlog at the recent average cost of a job,
 * spread at random over up to twice that, so refused callers do not all return in the same second.
 */
export function createBoundedQueue(options: {
  /** What the work is, in the refusal's message ("satellite key verifications"). */
  what: string;
  concurrency: number;
  maxWaiting: number;
  maxWaitMs: number;
  /** The cost of a job assumed before any has run. */
  expectedJobMs?: number;
  now?: () => number;
  random?: () => number;
}): BoundedQueue {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const waiting: Waiting[] = [];
  let running = 0;
  let averageMs = options.expectedJobMs ?? 250;

  const refusal = () => {
    const backlogMs = ((running + waiting.length + 1) * averageMs) / options.concurrency;
    const seconds = Math.min(60, Math.max(1, Math.ceil((backlogMs * (1 + random())) / 1000)));
    return new AppError('unavailable', `Too many ${options.what} at once; try again in ${seconds} s`, {
      details: { reason: 'busy', retry_after_seconds: seconds },
    });
  };

  const next = () => {
    while (running < options.concurrency) {
      const job = waiting.shift();
      if (!job) return;
      if (now() - job.since > options.maxWaitMs) job.refuse(refusal());
      else job.start();
    }
  };

  const execute = async <T>(work: () => Promise<T>): Promise<T> => {
    running += 1;
    const started = now();
    try {
      return await work();
    } finally {
      running -= 1;
      // A moving average: recent jobs say more about the machine's present load than old ones.
      averageMs = averageMs * 0.8 + Math.max(1, now() - started) * 0.2;
      next();
    }
  };

  return {
    run(work) {
      if (running < options.concurrency && waiting.length === 0) return execute(work);
      if (waiting.length >= options.maxWaiting) return Promise.reject(refusal());
      return new Promise((resolve, reject) => {
        waiting.push({ since: now(), start: () => execute(work).then(resolve, reject), refuse: reject });
      });
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}
