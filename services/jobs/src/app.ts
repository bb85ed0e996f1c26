import type { ScheduleStatus } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { type AppDeps, createRedisClient, isRedisReady } from '@orbital/service';
import { Queue, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from './config.ts';
import { createSchedules, type Schedule } from './domain/createSchedules.ts';
import { serveJobsStatus } from './handlers/serveJobsStatus.ts';
import { createScheduleKeeper, type ScheduleKeeper, type ScheduleState } from './queues/createScheduleKeeper.ts';
import { readScheduleStatus } from './queues/readScheduleStatus.ts';
import { jobTemplateOptions, queueNameFor } from './queues/scheduleQueue.ts';
import { startScheduleWorker } from './queues/startScheduleWorker.ts';

export type JobsApp = {
  schedules: Schedule[];
  readStatus(): Promise<ScheduleStatus[]>;
  /** Jobs per schedule and state (waiting, active, delayed, failed, completed), for the queue-depth gauge. */
  queueCounts(): Promise<Array<{ schedule: string; counts: Record<string, number> }>>;
  /** Whether the queues' Redis connection is ready now (readiness). */
  isRedisReady(): boolean;
  /** Whether every schedule was in place at the last look (readiness), or which were missing. */
  scheduleState(): ScheduleState;
  /** Looks for missing schedules now and puts them back (the keeper does it every JOBS_SCHEDULE_CHECK_MS). */
  checkSchedules(): Promise<void>;
  /** Stops taking ticks and waits (up to the grace period) for the running ones; before NATS drains. */
  stopWorkers(): Promise<void>;
  /** Closes the queues and Redis connections. The schedulers stay in Redis for the other replicas. */
  close(): Promise<void>;
};

/**
 * Wires the jobs service: a Job Scheduler per schedule (created or updated, so every replica may start
 * it), a worker per schedule, and `jobs.status.get`. No environment access: tests build the same app.
 */
export async function createJobsApp(deps: AppDeps<Config> & { now?: () => number }): Promise<JobsApp> {
  const { bus, logger, config } = deps;
  const now = deps.now ?? Date.now;
  const schedules = createSchedules({
    credentialValidationEveryMs: config.JOBS_CREDENTIAL_VALIDATION_EVERY_MS,
    templateHealthEveryMs: config.JOBS_TEMPLATE_HEALTH_EVERY_MS,
    logCleanupEveryMs: config.JOBS_LOG_CLEANUP_EVERY_MS,
    rotationMinutes: config.JOBS_CREDENTIAL_ROTATION_MINUTES,
    logLinesKept: config.JOBS_LOG_LINES_KEPT,
  });
  // Queue commands and status reads fail at once while Redis is away and after a second when it does not
  // answer, so a status request is answered well within its caller's wait; workers block on Redis by
  // design and BullMQ requires them to retry indefinitely (the `blocking` role).
  const queueRedis = createRedisClient({
    url: config.REDIS_URL,
    name: 'jobs-queue',
    logger,
    commandTimeoutMs: 1000,
  });
  const workerRedis = createRedisClient({ url: config.REDIS_URL, name: 'jobs-worker', logger, role: 'blocking' });

  const queues = new Map<Schedule['name'], Queue>();
  const workers: Worker[] = [];
  let keeper: ScheduleKeeper | undefined;
  const onReady = () => void keeper?.check();
  const close = async () => {
    keeper?.stop();
    queueRedis.off('ready', onReady);
    for (const worker of workers) await worker.close();
    for (const queue of queues.values()) await queue.close();
    queueRedis.disconnect();
    workerRedis.disconnect();
  };

  try {
    for (const schedule of schedules) {
      const queue = new Queue(queueNameFor(schedule), { connection: queueRedis, prefix: config.QUEUE_PREFIX });
      queue.on('error', (err) => logger.warn({ err, schedule: schedule.name }, 'queue error'));
      queues.set(schedule.name, queue);
    }
    const upsert = async (schedule: Schedule) => {
      const queue = queueOf(queues, schedule);
      // Upserting an unchanged scheduler keeps its next tick; a changed interval re-times it.
      await queue.upsertJobScheduler(
        schedule.name,
        { every: schedule.everyMs },
        {
          name: schedule.name,
          data: {},
          opts: jobTemplateOptions({ attempts: config.JOBS_ATTEMPTS, backoffMs: config.JOBS_BACKOFF_MS }),
        },
      );
      // No queue-wide concurrency limit: with one, a tick held by a killed replica blocked every later tick
      // of its schedule until the lock expired, on every replica. The owning service serialises the ticks
      // of a schedule and does each tick once; a queue that had the limit from an earlier version drops it.
      await queue.removeGlobalConcurrency();
      logger.info({ schedule: schedule.name, every_ms: schedule.everyMs }, 'schedule in place');
    };
    keeper = createScheduleKeeper({
      schedules,
      queueOf: (schedule) => queueOf(queues, schedule),
      upsert,
      isConnected: () => isRedisReady(queueRedis),
      logger,
    });
    // Every replica puts every schedule in place at start, once Redis answers (or later, when it does:
    // the keeper looks again whenever the connection is ready).
    if (await waitUntilReady(queueRedis, startWaitMs)) await keeper.check({ all: true });
    else logger.warn({ waited_ms: startWaitMs }, 'redis unreachable at start: schedules are put in place once it is');
    queueRedis.on('ready', onReady);
    keeper.start(config.JOBS_SCHEDULE_CHECK_MS);

    const readStatus = async () => {
      // A command to a client that never connected would wait for the connection; say so at once instead.
      if (!isRedisReady(queueRedis)) throw new Error('redis is not connected');
      return Promise.all(
        schedules.map((schedule) => readScheduleStatus(schedule, queueOf(queues, schedule), queueRedis, now())),
      );
    };
    serveJobsStatus(bus, readStatus);

    for (const schedule of schedules) {
      workers.push(
        startScheduleWorker(schedule, {
          bus,
          connection: workerRedis,
          prefix: config.QUEUE_PREFIX,
          logger,
          workTimeoutMs: config.JOBS_WORK_TIMEOUT_MS,
          lockMs: config.JOBS_LOCK_MS,
          startGraceMs: config.JOBS_START_GRACE_MS,
        }),
      );
    }

    const ownKeeper = keeper;
    return {
      schedules,
      readStatus,
      isRedisReady: () => isRedisReady(queueRedis),
      scheduleState: () => ownKeeper.state(),
      checkSchedules: () => ownKeeper.check(),
      queueCounts: async () =>
        isRedisReady(queueRedis)
          ? Promise.all(
              schedules.map(async (schedule) => ({
                schedule: schedule.name,
                counts: await queueOf(queues, schedule).getJobCounts(
                  'waiting',
                  'active',
                  'delayed',
                  'failed',
                  'completed',
                ),
              })),
            )
          : [],
      stopWorkers: () => stopWorkers(workers, config.JOBS_SHUTDOWN_GRACE_MS, logger),
      close,
    };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}

/** How long start-up waits for Redis before going on without it. */
const startWaitMs = 5000;

/** Resolves true once the client is ready, false if it is not within `ms`. */
async function waitUntilReady(redis: Redis, ms: number): Promise<boolean> {
  if (isRedisReady(redis)) return true;
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    redis.on('ready', onReady);
  });
}

function queueOf(queues: Map<Schedule['name'], Queue>, schedule: Schedule): Queue {
  const queue = queues.get(schedule.name);
  if (!queue) throw new Error(`no queue for ${schedule.name}`);
  return queue;
}

/**
 * Closes the workers, waiting for a running tick up to the grace period. A tick still running after it
 * is left to BullMQ's stalled-job recovery: its lock expires and another replica runs it again, for the
 * same tick time, which the owning service does once.
 */
async function stopWorkers(workers: Worker[], graceMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = Promise.all(workers.map((worker) => worker.close())).then(() => true);
  const gaveUp = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  const inTime = await Promise.race([closed, gaveUp]);
  clearTimeout(timer);
  if (inTime) logger.info('workers closed');
  else logger.warn({ grace_ms: graceMs }, 'a tick is still running; another replica will take it over');
}
