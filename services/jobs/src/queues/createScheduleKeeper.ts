import type { Logger } from '@orbital/logger';
import type { Queue } from 'bullmq';
import type { Schedule } from '../domain/createSchedules.ts';

/** Where the keeper's last look left the schedules. */
export type ScheduleState =
  /** Not looked at yet, or the last look could not be made (Redis away or failing). */
  | { kind: 'unknown' }
  | { kind: 'in_place' }
  /** The last look found these missing and could not put them back. */
  | { kind: 'missing'; schedules: string[] };

export type ScheduleKeeper = {
  /** Looks at every schedule and puts back what is missing; `all` puts every one in place regardless. */
  check(options?: { all?: boolean }): Promise<void>;
  state(): ScheduleState;
  /** Looks every `everyMs` from now on. */
  start(everyMs: number): void;
  stop(): void;
};

/**
 * Keeps each schedule's Job Scheduler in Redis. A scheduler lives only in Redis: when Redis comes back
 * empty (a restart without persistence, a failover to an empty replica) or its keys are evicted, BullMQ
 * never makes another tick, and nothing else notices. So the keeper looks, at every interval and whenever
 * the connection is ready again, for each scheduler and for the job of its next tick, and upserts the
 * ones it does not find, which puts back both (BullMQ adds the next tick's job when the scheduler has
 * none). A healthy scheduler is left alone: upserting it while a tick runs would move its next tick.
 */
export function createScheduleKeeper(deps: {
  schedules: Schedule[];
  queueOf(schedule: Schedule): Queue;
  /** Puts one schedule's scheduler in place (as at start: an unchanged one keeps its next tick). */
  upsert(schedule: Schedule): Promise<void>;
  /** Whether Redis can be asked now; without it the state is unknown, never "in place". */
  isConnected(): boolean;
  logger: Logger;
}): ScheduleKeeper {
  let state: ScheduleState = { kind: 'unknown' };
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> = Promise.resolve();

  /** Whether the scheduler is there and so is the job of its next tick. */
  async function isInPlace(schedule: Schedule): Promise<boolean> {
    const queue = deps.queueOf(schedule);
    const scheduler = await queue.getJobScheduler(schedule.name);
    if (!scheduler) return false;
    if (!scheduler.next) return true;
    if (await queue.getJob(`repeat:${schedule.name}:${scheduler.next}`)) return true;
    // A worker may have taken that tick and moved the scheduler on between the two reads: only a
    // scheduler still pointing at a job that is not there is broken.
    const again = await queue.getJobScheduler(schedule.name);
    return again !== undefined && again.next !== scheduler.next;
  }

  async function look(all: boolean): Promise<void> {
    if (!deps.isConnected()) {
      state = { kind: 'unknown' };
      return;
    }
    const missing: string[] = [];
    try {
      for (const schedule of deps.schedules) {
        if (!all && (await isInPlace(schedule))) continue;
        try {
          await deps.upsert(schedule);
          if (!all) {
            deps.logger.warn(
              { schedule: schedule.name, every_ms: schedule.everyMs },
              'schedule was missing from Redis (restarted empty, or its keys evicted): put back',
            );
          }
        } catch (error) {
          missing.push(schedule.name);
          deps.logger.warn({ err: error, schedule: schedule.name }, 'schedule missing from Redis and not put back');
        }
      }
    } catch (error) {
      state = { kind: 'unknown' };
      deps.logger.warn({ err: error }, 'schedules not checked: Redis did not answer');
      return;
    }
    state = missing.length > 0 ? { kind: 'missing', schedules: missing } : { kind: 'in_place' };
  }

  const keeper: ScheduleKeeper = {
    check(options = {}) {
      // One look at a time: a look asked for during another starts when it ends.
      const next = looking.then(() => look(options.all ?? false));
      looking = next.catch(() => {});
      return next;
    },
    // Without Redis nothing is known, whatever the last look found.
    state: () => (deps.isConnected() ? state : { kind: 'unknown' }),
    start(everyMs) {
      timer = setInterval(() => void keeper.check(), everyMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
  return keeper;
}
