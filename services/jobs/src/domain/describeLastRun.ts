import type { ScheduleStatus } from '@orbital/contracts';

/** What the status needs of one BullMQ job record, whatever state it is in. */
export type JobSnapshot = {
  state: 'completed' | 'failed' | 'active' | 'delayed';
  /** Start of the latest attempt; absent while the job waits for its tick. */
  processedOn?: number | undefined;
  finishedOn?: number | undefined;
  attemptsMade: number;
  attemptsStarted: number;
  returnvalue: unknown;
  failedReason?: string | undefined;
};

export type LastRun = NonNullable<ScheduleStatus['last_run']>;

/**
 * The schedule's last run: the job whose latest attempt started most recently, among those with an
 * outcome. A finished job succeeded or failed; a job that failed an attempt and will be tried again
 * (waiting for its backoff, or running again) is `retrying`. A tick in its first attempt has no outcome
 * yet and is left out, so the previous run stays visible until it ends.
 */
export function describeLastRun(jobs: JobSnapshot[]): LastRun | null {
  let latest: { job: JobSnapshot; startedAt: number } | null = null;
  for (const job of jobs) {
    if (job.processedOn === undefined || !hasOutcome(job)) continue;
    if (!latest || job.processedOn > latest.startedAt) latest = { job, startedAt: job.processedOn };
  }
  if (!latest) return null;
  const { job, startedAt } = latest;
  const finished = job.state === 'completed' || job.state === 'failed';
  const finishedAt = finished && job.finishedOn !== undefined ? job.finishedOn : null;
  return {
    started_at: new Date(startedAt).toISOString(),
    finished_at: finishedAt === null ? null : new Date(finishedAt).toISOString(),
    duration_ms: finishedAt === null ? null : finishedAt - startedAt,
    outcome: job.state === 'completed' ? 'succeeded' : job.state === 'failed' ? 'failed' : 'retrying',
    attempts: Math.max(job.attemptsMade, job.attemptsStarted),
    result: job.state === 'completed' && isRecord(job.returnvalue) ? job.returnvalue : null,
    // A job that succeeded on a retry keeps the reason of its last failed attempt; it is no error now.
    error: job.state === 'completed' ? null : (job.failedReason ?? null),
  };
}

function hasOutcome(job: JobSnapshot): boolean {
  if (job.state === 'active') return job.attemptsStarted > 1;
  if (job.state === 'delayed') return job.attemptsMade > 0;
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
