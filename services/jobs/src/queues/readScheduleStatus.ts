import type { ScheduleStatus } from '@orbital/contracts';
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Schedule } from '../domain/createSchedules.ts';
import { describeLastRun, type JobSnapshot } from '../domain/describeLastRun.ts';

const dayMs = 24 * 3600 * 1000;

/**
 * A schedule's status, read from BullMQ's own records in Redis (the scheduler and the job hashes), so
 * every replica answers the same and no second store can drift from what actually ran.
 */
export async function readScheduleStatus(
  schedule: Schedule,
  queue: Queue,
  redis: Redis,
  now: number,
): Promise<ScheduleStatus> {
  const [scheduler, completed, failed, active, delayed, failedLastDay] = await Promise.all([
    queue.getJobScheduler(schedule.name),
    // Finished sets are ordered by finish time; the newest of each is enough.
    queue.getJobs(['completed'], 0, 0, false),
    queue.getJobs(['failed'], 0, 0, false),
    queue.getJobs(['active'], 0, 20),
    // The next tick waiting for its time, and ticks waiting for a retry.
    queue.getJobs(['delayed'], 0, 20),
    // The failed set is scored by finish time: a range count, without loading the jobs.
    redis.zcount(queue.toKey('failed'), now - dayMs, '+inf'),
  ]);
  const snapshots = [
    ...completed.map((job) => snapshot(job, 'completed')),
    ...failed.map((job) => snapshot(job, 'failed')),
    ...active.map((job) => snapshot(job, 'active')),
    ...delayed.map((job) => snapshot(job, 'delayed')),
  ];
  return {
    schedule: schedule.name,
    // What the scheduler in Redis runs with, which the last replica to start decided.
    every_ms: scheduler?.every ?? schedule.everyMs,
    next_run_at: scheduler?.next ? new Date(scheduler.next).toISOString() : null,
    last_run: describeLastRun(snapshots),
    failed_last_24h: failedLastDay,
  };
}

function snapshot(job: Job, state: JobSnapshot['state']): JobSnapshot {
  return {
    state,
    processedOn: job.processedOn,
    finishedOn: job.finishedOn,
    attemptsMade: job.attemptsMade,
    attemptsStarted: job.attemptsStarted,
    returnvalue: job.returnvalue,
    failedReason: job.failedReason,
  };
}
