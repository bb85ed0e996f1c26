import { type Bus, createBus } from '@orbital/bus';
import { type CallerIdentity, jobsStatusSubject, scheduleNames } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveJobsStatus } from '../src/handlers/serveJobsStatus.ts';
import {
  clientBus,
  deleteQueueKeys,
  type InProcessReplica,
  isolatedEnv,
  startInProcessReplica,
  startWorkResponder,
  statusOf,
  waitFor,
} from './jobsHarness.ts';

const admin: CallerIdentity = { kind: 'user', user_id: 'u-admin', global_role: 'global_admin', memberships: [] };
const teamAdmin: CallerIdentity = {
  kind: 'user',
  user_id: 'u-user',
  global_role: 'global_user',
  memberships: [{ team_id: 't1', role: 'team_admin' }],
};

let env: TestEnvironment;
let slice: ReturnType<typeof isolatedEnv>;
let responder: Awaited<ReturnType<typeof startWorkResponder>>;
let replicas: InProcessReplica[] = [];
let client: Bus;

beforeAll(async () => {
  env = await createTestEnvironment({ withDatabase: false });
  slice = isolatedEnv(env, 'status', {
    JOBS_CREDENTIAL_VALIDATION_EVERY_MS: '3600000',
    JOBS_TEMPLATE_HEALTH_EVERY_MS: '3600000',
    JOBS_LOG_CLEANUP_EVERY_MS: '3600000',
  });
  responder = await startWorkResponder(slice, { log_cleanup: () => ({ removed: 1234 }) });
  replicas = [await startInProcessReplica(slice), await startInProcessReplica(slice)];
  client = await clientBus(slice);
});
afterAll(async () => {
  await client?.drain();
  for (const replica of replicas) await replica.stop();
  await responder?.stop();
  await deleteQueueKeys(env.redisUrl, slice.queuePrefix);
  await env.cleanup();
});

describe('jobs.status.get', () => {
  it('tells a global admin the last run, duration and outcome of each schedule', async () => {
    const statuses = await waitFor('every schedule to have run', async () => {
      const reply = await client.request(jobsStatusSubject, {}, { identity: admin });
      return reply.every((s) => s.last_run?.outcome === 'succeeded') ? reply : undefined;
    });
    expect(statuses.map((s) => s.schedule)).toEqual([...scheduleNames]);
    const cleanup = statusOf(statuses, 'log_cleanup');
    expect(cleanup).toMatchObject({
      every_ms: 3600000,
      failed_last_24h: 0,
      last_run: {
        outcome: 'succeeded',
        attempts: 1,
        result: { removed: 1234, audit_entries_removed: 0, audit_retention_days: 90 },
        error: null,
      },
    });
    const run = cleanup.last_run;
    expect(run?.duration_ms).toBeGreaterThanOrEqual(0);
    // The next tick is one interval after this one.
    expect(Date.parse(cleanup.next_run_at ?? '')).toBeGreaterThan(Date.parse(run?.started_at ?? ''));
    expect(statusOf(statuses, 'credential_validation').last_run?.result).toEqual({
      due: 2,
      queued: 2,
      installation_ids: ['inst-a', 'inst-b'],
    });
  });

  it('is the same from every replica, read from the job records in Redis', async () => {
    const [a, b] = replicas as [InProcessReplica, InProcessReplica];
    expect(await a.app.readStatus()).toEqual(await b.app.readStatus());
  });

  it('refuses users who are not global admins, platform services, and anonymous callers', async () => {
    for (const identity of [teamAdmin, { kind: 'service', service: 'installations' } as const]) {
      await expect(client.request(jobsStatusSubject, {}, { identity })).rejects.toMatchObject({ code: 'forbidden' });
    }
    await expect(client.request(jobsStatusSubject, {}, { identity: { kind: 'anonymous' } })).rejects.toMatchObject({
      code: 'unauthenticated',
    });
  });

  it('rejects a request with unexpected fields', async () => {
    await expect(
      client.request(jobsStatusSubject, { schedule: 'log_cleanup' } as never, { identity: admin }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('answers unavailable when the job store cannot be read', async () => {
    // A second responder in its own queue group over a store that fails, on a subject prefix of its own.
    const failing = isolatedEnv(env, 'status_down');
    const bus = await createBus({
      servers: env.natsUrl,
      identity: env.identity,
      name: 'jobs-failing',
      prefix: failing.subjectPrefix,
      logger: createLogger({ name: 'jobs', level: 'silent' }),
    });
    serveJobsStatus(bus, async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    });
    await bus.flush();
    const failingClient = await clientBus(failing);
    try {
      const error = await failingClient.request(jobsStatusSubject, {}, { identity: admin }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'unavailable', message: 'The job store (Redis) did not answer' });
    } finally {
      await failingClient.drain();
      await bus.drain();
    }
  });
});
