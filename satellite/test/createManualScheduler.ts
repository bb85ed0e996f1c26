import type { Scheduler, SchedulerTimer } from '../src/backend/scheduler.ts';

export type ManualScheduler = Scheduler & {
  /** Moves the clock, running every timer that falls due on the way, in order; awaits I/O in between. */
  advance(ms: number): Promise<void>;
  /** Delays of the timers now pending, soonest first (what the code under test intends to wait). */
  pending(): number[];
};

/** Lets the event loop run the I/O the callbacks started (HTTP replies from a real local server). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A clock that moves only when the test says so; HTTP stays real. */
export function createManualScheduler(start = 1_700_000_000_000): ManualScheduler {
  let now = start;
  let nextId = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => now,
    setTimeout(callback, ms) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms), callback });
      return { id };
    },
    clearTimeout(timer: SchedulerTimer | undefined) {
      if (timer) timers.delete(timer.id as number);
    },
    pending() {
      return [...timers.values()].map((t) => t.at - now).sort((a, b) => a - b);
    },
    async advance(ms) {
      const target = now + ms;
      for (;;) {
        await settle();
        let due: [number, { at: number; callback: () => void }] | undefined;
        for (const entry of timers) if (entry[1].at <= target && (!due || entry[1].at < due[1].at)) due = entry;
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].callback();
      }
      now = target;
      await settle();
    },
  };
}
