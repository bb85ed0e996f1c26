import type { Bus } from '@orbital/bus';
import { serviceIdentity } from '@orbital/contracts';
import { type AppError, type ErrorCode, toAppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Schedule, WorkRequester } from '../domain/createSchedules.ts';
import { tickTimeOf } from '../domain/tickTimeOf.ts';
import { queueNameFor } from './scheduleQueue.ts';

export type WorkerDeps = {
  bus: Pick<Bus, 'request'>;
  connection: Redis;
  prefix: string;
  logger: Logger;
  workTimeoutMs: number;
  /** BullMQ's lock duration: how long a tick stays claimed by a replica that stopped renewing it. */
  lockMs: number;
  /** After start, how long `unavailable` answers are retried quietly until a tick first succeeds. */
  startGraceMs?: number;
};

/**
 * Errors that another attempt cannot fix: the owning service refused the request itself (a contract
 * or permission mismatch between deployed versions). Everything else (unavailable, timeouts, internal
 * failures, conflicts) is retried with backoff.
 */
const permanentCodes: ReadonlySet<ErrorCode> = new Set([
  'validation_failed',
  'forbidden',
  'unauthenticated',
  'not_found',
]);

/**
 * Runs a schedule's ticks in this replica. Every replica runs one; BullMQ hands each job (one per tick)
 * to one worker at a time. A replica that dies mid-tick stops renewing its lock; the stalled-job check
 * of the others then puts the tick back and one of them runs it again, with the same tick time, so the
 * owning service recognises it and does the work once. Repeatable jobs are never failed for stalling.
 */
export function startScheduleWorker(schedule: Schedule, deps: WorkerDeps): Worker {
  const log = deps.logger.child({ schedule: schedule.name });
  const identity = serviceIdentity('jobs');
  const startedAt = performance.now();
  // Until the owning service has taken one tick, "unavailable" at start means it is still starting.
  let answeredOnce = false;
  const startingUp = (error: Error) =>
    !answeredOnce &&
    performance.now() - startedAt < (deps.startGraceMs ?? 0) &&
    error.message.startsWith('unavailable:');

  const processor = async (job: Job) => {
    const tickAt = tickTimeOf(job, schedule.name);
    const attempt = job.attemptsStarted;
    const requestId = `job-${schedule.name}-${tickAt.getTime()}-${attempt}`;
    const started = performance.now();
    log.debug({ tick_at: tickAt.toISOString(), attempt, job_id: job.id }, 'tick started');
    const request: WorkRequester = (def, payload) =>
      deps.bus.request(def, payload, { identity, requestId, timeoutMs: deps.workTimeoutMs });
    try {
      const result = await schedule.perform(tickAt, request);
      answeredOnce = true;
      log.info(
        { tick_at: tickAt.toISOString(), attempt, duration_ms: Math.round(performance.now() - started), result },
        'tick done',
      );
      return result;
    } catch (error) {
      throw asJobError(toAppError(error));
    }
  };

  // A worker may share the connection: BullMQ opens (and closes) its own blocking connection from it.
  const worker = new Worker(queueNameFor(schedule), processor, {
    connection: deps.connection,
    prefix: deps.prefix,
    // One tick of a schedule at a time per replica; across replicas the owning service serialises them.
    concurrency: 1,
    lockDuration: deps.lockMs,
    // Ticks whose lock lapsed are found within lockMs + this, and put back for another replica.
    stalledInterval: Math.max(500, Math.round(deps.lockMs / 2)),
  });

  worker.on('failed', (job, error) => {
    if (!job) return;
    const context = {
      tick_at: tickTimeOf(job, schedule.name).toISOString(),
      job_id: job.id,
      attempt: job.attemptsMade,
    };
    const maxAttempts = job.opts.attempts ?? 1;
    if (error instanceof UnrecoverableError || job.attemptsMade >= maxAttempts) {
      log.error({ ...context, reason: error.message }, 'tick failed permanently');
    } else if (startingUp(error)) {
      log.debug({ ...context, reason: error.message }, 'the owning service is starting; the tick waits for it');
    } else {
      log.warn({ ...context, max_attempts: maxAttempts, reason: error.message }, 'tick failed; will retry');
    }
  });
  worker.on('error', (error) => log.error({ err: error }, 'worker error'));
  return worker;
}

/** The job's failure as BullMQ records it: code and message only, never a remote stack or details. */
function asJobError(error: AppError): Error {
  const message = `${error.code}: ${error.message}`;
  return permanentCodes.has(error.code) ? new UnrecoverableError(message) : new Error(message);
}
