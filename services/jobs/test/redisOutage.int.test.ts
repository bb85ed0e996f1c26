import { type Bus, createBus } from '@orbital/bus';
import { type CallerIdentity, jobsStatusSubject } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import {
  createTestEnvironment,
  type PrivateRedisServer,
  startRedisServer,
  type TestEnvironment,
} from '@orbital/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueNameFor } from '../src/queues/scheduleQueue.ts';
import {
  type InProcessReplica,
  isolatedEnv,
  startInProcessReplica,
  startWorkResponder,
  type TestSlice,
  waitFor,
} from './jobsHarness.ts';

/**
 * The jobs service on a Redis of the test's own that goes away and comes back empty (as one without
 * persistence does after a restart or a failover), and that loses keys while running (eviction): the
 * schedules are put back within one tick interval, ticks go on, and readiness says what is wrong meanwhile.
 */
const everyMs = 1000;
const admin: CallerIdentity = { kind: 'user', user_id: 'u-admin', global_role: 'global_admin', memberships: [] };

let env: TestEnvironment;
let redis: PrivateRedisServer;
let slice: TestSlice;
let responder: Awaited<ReturnType<typeof startWorkResponder>>;
let replica: InProcessReplica;
let client: Bus;

beforeAll(async () => {
  env = await createTestEnvironment({ withDatabase: false });
  redis = await startRedisServer();
  slice = isolatedEnv(env, 'redis_outage', {
    REDIS_URL: redis.url,
    JOBS_CREDENTIAL_VALIDATION_EVERY_MS: String(everyMs),
    JOBS_TEMPLATE_HEALTH_EVERY_MS: String(everyMs),
    JOBS_LOG_CLEANUP_EVERY_MS: String(everyMs),
    JOBS_SCHEDULE_CHECK_MS: String(everyMs / 4),
  });
  responder = await startWorkResponder(slice);
  replica = await startInProcessReplica(slice);
  client = await createBus({
    ...slice.busOptions('jobs-client'),
    logger: createLogger({ name: 'c', level: 'silent' }),
  });
});

afterAll(async () => {
  await client?.drain();
  await replica?.stop();
  await responder?.stop();
  await redis?.close();
  await env.cleanup();
});

const ticks = () => new Set(responder.of('credential_validation').map((r) => String(r.payload.tick_at))).size;

async function ticksGoOn() {
  const before = ticks();
  await waitFor('two more ticks', () => (ticks() >= before + 2 ? true : undefined), 10_000);
}

describe('the jobs service and its Redis', () => {
  it('puts the schedules back when Redis returns empty, and reports them meanwhile', async () => {
    await ticksGoOn();
    expect(replica.app.isRedisReady()).toBe(true);
    expect(replica.app.scheduleState()).toEqual({ kind: 'in_place' });

    await redis.stop();
    await waitFor('the connection to be seen gone', () => (replica.app.isRedisReady() ? undefined : true));
    await replica.app.checkSchedules();
    expect(replica.app.scheduleState()).toEqual({ kind: 'unknown' });
    // The status is refused as an outage at once, never left to the caller's timeout.
    await expect(client.request(jobsStatusSubject, {}, { identity: admin })).rejects.toMatchObject({
      code: 'unavailable',
      message: 'The job store (Redis) did not answer',
    });

    await redis.start();
    await waitFor('the schedules to be back', () =>
      replica.app.scheduleState().kind === 'in_place' && replica.app.isRedisReady() ? true : undefined,
    );
    await ticksGoOn();
    expect(replica.logs()).toContain('schedule was missing from Redis');
    const statuses = await client.request(jobsStatusSubject, {}, { identity: admin });
    expect(statuses.map((s) => s.next_run_at)).not.toContain(null);
  });

  it('puts back a scheduler whose keys were evicted, and one whose next tick was', async () => {
    const direct = new Redis(redis.url);
    try {
      const prefix = `${slice.queuePrefix}:${queueNameFor({ name: 'credential_validation' })}`;
      // The scheduler's records gone, as an eviction under memory pressure may take them.
      await direct.del(`${prefix}:repeat`, ...(await direct.keys(`${prefix}:repeat:*`)));
      await waitFor('the scheduler to be back', async () =>
        (await direct.zcard(`${prefix}:repeat`)) === 1 ? true : undefined,
      );
      await ticksGoOn();

      // Only the job of the next tick gone: the scheduler still points at it and would never tick again.
      const next = await direct.zscore(`${prefix}:repeat`, 'credential_validation');
      const jobId = `repeat:credential_validation:${next}`;
      await direct.zrem(`${prefix}:delayed`, jobId);
      await direct.del(`${prefix}:${jobId}`);
      await ticksGoOn();
    } finally {
      direct.disconnect();
    }
  });
});
