import type { ScheduleName } from '@orbital/contracts';
import { type ChildService, createTestEnvironment, startServiceProcess, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteQueueKeys, isolatedEnv, logLines, readScheduler, startWorkResponder, waitFor } from './jobsHarness.ts';

const everyMs = 500;

let env: TestEnvironment;
let queuePrefix = '';
beforeAll(async () => {
  env = await createTestEnvironment({ withDatabase: false });
});
afterAll(async () => {
  if (queuePrefix) await deleteQueueKeys(env.redisUrl, queuePrefix);
  await env.cleanup();
});

/** How many requests arrived for each tick time of a schedule. */
function ticksOf(requests: Array<{ payload: Record<string, unknown> }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of requests) counts.set(String(r.payload.tick_at), (counts.get(String(r.payload.tick_at)) ?? 0) + 1);
  return counts;
}

describe('two replicas', () => {
  it('run each tick once, and the survivor keeps ticking after one stops on SIGTERM', async () => {
    const s = isolatedEnv(env, 'replicas', {
      JOBS_CREDENTIAL_VALIDATION_EVERY_MS: String(everyMs),
      JOBS_TEMPLATE_HEALTH_EVERY_MS: String(everyMs),
      JOBS_LOG_CLEANUP_EVERY_MS: String(everyMs),
      JOBS_CREDENTIAL_ROTATION_MINUTES: '15',
      JOBS_LOG_LINES_KEPT: '42',
    });
    queuePrefix = s.queuePrefix;
    const responder = await startWorkResponder(s);
    const replicas: ChildService[] = [];
    try {
      replicas.push(await startServiceProcess('services/jobs/src/main.ts', s.env));
      replicas.push(await startServiceProcess('services/jobs/src/main.ts', s.env));
      const [first, second] = replicas as [ChildService, ChildService];
      const distinctTicks = (schedule: ScheduleName) => ticksOf(responder.of(schedule)).size;

      // Both replicas up: let several ticks of each schedule pass.
      const before = distinctTicks('credential_validation');
      await waitFor('ticks with both replicas running', () =>
        distinctTicks('credential_validation') >= before + 6 && distinctTicks('template_health') >= before + 6
          ? true
          : undefined,
      );

      // SIGTERM: the replica closes its workers and exits cleanly; the schedulers stay in Redis.
      expect(await first.stop()).toBe(0);
      const firstLogs = logLines(first.output());
      expect(firstLogs.some((l) => l.msg === 'workers closed')).toBe(true);
      expect(firstLogs.some((l) => l.msg === 'stopped')).toBe(true);
      expect(firstLogs.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
      for (const schedule of ['credential_validation', 'template_health', 'log_cleanup'] as const) {
        expect(await readScheduler(env.redisUrl, s.queuePrefix, schedule)).toMatchObject({ every: everyMs });
      }

      // The survivor goes on alone.
      const afterStop = distinctTicks('credential_validation');
      await waitFor('ticks after one replica stopped', () =>
        distinctTicks('credential_validation') >= afterStop + 4 ? true : undefined,
      );
      expect(await second.stop()).toBe(0);

      for (const schedule of ['credential_validation', 'template_health'] as const) {
        const ticks = ticksOf(responder.of(schedule));
        // Each tick reached the owning service exactly once, with two replicas and through a shutdown.
        expect([...ticks.entries()].filter(([, count]) => count !== 1)).toEqual([]);
        // And each was done by one of the replicas, as their logs tell.
        const done = [first, second].flatMap((replica) =>
          logLines(replica.output()).filter((l) => l.msg === 'tick done' && l.schedule === schedule),
        );
        expect(done.map((l) => l.tickAt).sort()).toEqual([...ticks.keys()].sort());
        // Tick times are the scheduler's slots, one interval (or a whole number of them) apart.
        const times = [...ticks.keys()].map((t) => Date.parse(t)).sort((a, b) => a - b);
        for (let i = 1; i < times.length; i += 1) {
          const gap = (times[i] as number) - (times[i - 1] as number);
          expect(gap % everyMs).toBe(0);
          expect(gap).toBeGreaterThan(0);
        }
      }
      const validation = responder.of('credential_validation');
      expect(validation[0]?.payload).toMatchObject({ rotation_minutes: 15, every_ms: everyMs });
      expect(validation.every((r) => r.identity.kind === 'service' && r.identity.service === 'jobs')).toBe(true);
      expect(responder.of('log_cleanup').every((r) => r.payload.keep_per_installation === 42)).toBe(true);
      expect(responder.of('log_cleanup').length).toBeGreaterThan(0);
    } finally {
      for (const replica of replicas) await replica.kill();
      await responder.stop();
    }
  });
});
