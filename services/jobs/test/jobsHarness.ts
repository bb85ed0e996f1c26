import { type Bus, createBus } from '@orbital/bus';
import {
  auditSubjects,
  type CallerIdentity,
  jobWorkSubjects,
  type ScheduleName,
  type ScheduleStatus,
} from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { captureLog, type ServiceUnderTest, startServiceUnderTest, type TestEnvironment } from '@orbital/testing';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createJobsApp, type JobsApp } from '../src/app.ts';
import { configSchema } from '../src/config.ts';
import { queueNameFor } from '../src/queues/scheduleQueue.ts';

/** One request the stand-in installations service received. */
export type ReceivedWork = {
  schedule: ScheduleName;
  payload: Record<string, unknown>;
  identity: CallerIdentity;
};

/** Decides the answer to one request: return the reply, or throw an AppError to answer with it. */
export type WorkBehaviour = (
  payload: Record<string, unknown>,
  received: ReceivedWork[],
) => Record<string, unknown> | Promise<Record<string, unknown>>;

const defaultReplies: Record<ScheduleName, WorkBehaviour> = {
  credential_validation: () => ({ due: 2, queued: 2, installation_ids: ['inst-a', 'inst-b'] }),
  template_health: () => ({ templates_updated: 3 }),
  log_cleanup: () => ({ removed: 0 }),
};

/**
 * A small real NATS service answering the installations work subjects, in the `installations` queue
 * group, as the installations service will, and the audit log's prune (asked by the cleanup tick after
 * its log lines) as the settings service does. It records every request so tests can count ticks.
 */
export async function startWorkResponder(
  env: Pick<TestEnvironment, 'busOptions'>,
  behaviours: Partial<Record<ScheduleName, WorkBehaviour>> = {},
): Promise<{ received: ReceivedWork[]; of(schedule: ScheduleName): ReceivedWork[]; stop(): Promise<void> }> {
  const bus = await createBus({
    ...env.busOptions('installations-stand-in'),
    logger: createLogger({ name: 'installations-stand-in', level: 'silent' }),
  });
  const received: ReceivedWork[] = [];
  const subjects = {
    credential_validation: jobWorkSubjects.credentialValidation,
    template_health: jobWorkSubjects.templateHealth,
    log_cleanup: jobWorkSubjects.logCleanup,
  } as const;
  for (const schedule of Object.keys(subjects) as ScheduleName[]) {
    const behaviour = behaviours[schedule] ?? defaultReplies[schedule];
    bus.serve(subjects[schedule], (payload, context) => {
      const entry = { schedule, payload: payload as Record<string, unknown>, identity: context.identity };
      received.push(entry);
      const mine = received.filter((r) => r.schedule === schedule);
      // The reply is checked against the contract by the requester; the cast only satisfies the union.
      return behaviour(entry.payload, mine) as never;
    });
  }
  bus.serve(auditSubjects.prune, () => ({ removed: 0, retention_days: 90, cutoff: new Date().toISOString() }));
  await bus.flush();
  return {
    received,
    of: (schedule) => received.filter((r) => r.schedule === schedule),
    stop: () => bus.drain(),
  };
}

/** The JSON log lines written so far. */
export function logLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export type InProcessReplica = ServiceUnderTest<JobsApp> & { logs(): string };

/** A jobs replica in this process on its own NATS and Redis connections, stopped as main.ts stops it. */
export async function startInProcessReplica(slice: TestSlice): Promise<InProcessReplica> {
  const log = captureLog();
  const replica = await startServiceUnderTest({
    env: slice,
    name: 'jobs-test',
    logger: createLogger({ name: 'jobs', level: 'debug', destination: log.stream }),
    configSchema,
    create: createJobsApp,
    stopApp: (app) => app.stopWorkers(),
    release: (app) => app.close(),
  });
  return { ...replica, logs: log.text };
}

/** A client on the bus, as gateway-api or an operator's tool would be. */
export async function clientBus(env: Pick<TestEnvironment, 'busOptions'>): Promise<Bus> {
  return createBus({ ...env.busOptions('jobs-client'), logger: createLogger({ name: 'client', level: 'silent' }) });
}

export type TestSlice = ReturnType<typeof isolatedEnv>;

/**
 * An isolated slice of the test environment for one test: its own subject and queue prefix, so the
 * schedulers one test leaves in Redis never tick into another test.
 */
export function isolatedEnv(env: TestEnvironment, name: string, overrides: Record<string, string> = {}) {
  const subjectPrefix = `${env.subjectPrefix}_${name}`;
  const queuePrefix = `${env.queuePrefix}-${name}`;
  return {
    subjectPrefix,
    queuePrefix,
    busOptions: (name: string) => ({ ...env.busOptions(name), prefix: subjectPrefix }),
    env: {
      NATS_URL: env.natsUrl,
      IDENTITY_SIGNING_KEY: env.identity.signingKeys,
      IDENTITY_PUBLIC_KEYS: env.identity.publicKeys,
      NATS_SUBJECT_PREFIX: subjectPrefix,
      REDIS_URL: env.redisUrl,
      QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: 'debug',
      ...overrides,
    },
  };
}

/** Polls until `check` returns a value (not undefined), or fails after the timeout with `what`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The status of one schedule from a `jobs.status.get` reply. */
export function statusOf(statuses: ScheduleStatus[], schedule: ScheduleName): ScheduleStatus {
  const status = statuses.find((s) => s.schedule === schedule);
  if (!status) throw new Error(`no status for ${schedule}`);
  return status;
}

/** Reads a schedule's Job Scheduler straight from Redis, as another replica would see it. */
export async function readScheduler(redisUrl: string, queuePrefix: string, schedule: ScheduleName) {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const queue = new Queue(queueNameFor({ name: schedule }), { connection, prefix: queuePrefix });
  try {
    return await queue.getJobScheduler(schedule);
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

/** Deletes every key a test left under its queue prefix (schedulers stay after replicas stop, by design). */
export async function deleteQueueKeys(redisUrl: string, queuePrefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${queuePrefix}:*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
