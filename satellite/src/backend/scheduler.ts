/**
 * Time as the backend link sees it. Every delay of the link (batch windows, backoff, polling, request
 * timeouts, the shutdown deadline) goes through one of these, so tests drive them with a manual clock
 * while real HTTP runs underneath (fake timers would also freeze the HTTP client's own timers).
 */
export type Scheduler = {
  now(): number;
  setTimeout(callback: () => void, ms: number): SchedulerTimer;
  clearTimeout(timer: SchedulerTimer | undefined): void;
};

export type SchedulerTimer = { readonly id: unknown };

/** Real time; timers never keep the process alive on their own. */
export const systemScheduler: Scheduler = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return { id: handle };
  },
  clearTimeout(timer) {
    if (timer) clearTimeout(timer.id as NodeJS.Timeout);
  },
};

/** Resolves after `ms` on the scheduler's clock, or at once when `signal` aborts. */
export function delay(scheduler: Scheduler, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = scheduler.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      scheduler.clearTimeout(timer);
      resolve();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
