import type { Schedule } from '../domain/createSchedules.ts';

/**
 * One BullMQ queue per schedule, so each schedule's finished-job records (kept for a bounded time and
 * count) are its own: a 1-minute schedule never pushes the 10-minute schedule's last run out of the
 * record the status reads. The names are private to this service; nothing else enqueues into them.
 */
export function queueNameFor(schedule: Pick<Schedule, 'name'>): string {
  return `jobs-${schedule.name}`;
}

export type RetryPolicy = { attempts: number; backoffMs: number };

const hour = 3600;

/** Options every job of a schedule is created with (the Job Scheduler's template). */
export function jobTemplateOptions(policy: RetryPolicy) {
  return {
    attempts: policy.attempts,
    backoff: { type: 'exponential' as const, delay: policy.backoffMs },
    // Enough history for the status (last run, failures in the last 24 hours) without growing forever.
    removeOnComplete: { age: 24 * hour, count: 500 },
    removeOnFail: { age: 7 * 24 * hour, count: 2000 },
  };
}
