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

/** The tick times a replica started (`tick started`) and finished (`tick done`), per schedule. */
function ticksLogged(output: string, schedule: ScheduleName, msg: 'tick started' | 'tick done'): Set<string> {
  return new Set(
    logLines(output)
      .filter((l) => l.msg === msg && l.schedule === schedule)
      .map((l) => String(l.tick_at)),
  );
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
        expect(done.map((l) => l.tick_at).sort()).toEqual([...ticks.keys()].sort());
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

  it('a replica SIGKILLed mid-tick: its tick is run again by the other, with the same tick time, and no tick is missed', async () => {
    const every = 1000;
    const s = isolatedEnv(env, 'sigkill', {
      JOBS_CREDENTIAL_VALIDATION_EVERY_MS: String(every),
      JOBS_TEMPLATE_HEALTH_EVERY_MS: String(every),
      JOBS_LOG_CLEANUP_EVERY_MS: String(every),
      // A killed replica's tick is taken over within a few seconds instead of the production 15 to 30.
      JOBS_LOCK_MS: '3000',
    });
    const killedPrefix = s.queuePrefix;
    // The reply to one credential tick is held back, so a replica is certainly mid-tick when it is killed.
    let armed = false;
    let heldTick: string | null = null;
    const release = Promise.withResolvers<void>();
    const responder = await startWorkResponder(s, {
      credential_validation: async (payload) => {
        if (armed && heldTick === null) {
          heldTick = String(payload.tick_at);
          await release.promise;
        }
        return { due: 0, queued: 0, installation_ids: [] };
      },
    });
    const replicas: ChildService[] = [];
    try {
      replicas.push(await startServiceProcess('services/jobs/src/main.ts', s.env));
      replicas.push(await startServiceProcess('services/jobs/src/main.ts', s.env));
      const distinctTicks = () => ticksOf(responder.of('credential_validation')).size;
      await waitFor('ticks with both replicas running', () => (distinctTicks() >= 3 ? true : undefined));

      armed = true;
      const held = await waitFor('a tick held mid-way', () => heldTick ?? undefined);
      const victim = await waitFor('the replica running the held tick', () =>
        replicas.find((r) => ticksLogged(r.output(), 'credential_validation', 'tick started').has(held)),
      );
      const survivor = replicas.find((r) => r !== victim) as ChildService;
      await victim.kill();
      release.resolve();

      // The survivor goes on ticking meanwhile, takes the killed tick over, and goes on after it.
      const requestsOf = (tick: string) =>
        responder.of('credential_validation').filter((r) => r.payload.tick_at === tick);
      await waitFor('the killed tick taken over', () => (requestsOf(held).length >= 2 ? true : undefined), 30000);
      const afterTakeover = distinctTicks();
      await waitFor('ticks after the takeover', () => (distinctTicks() >= afterTakeover + 3 ? true : undefined));
      expect(await survivor.stop()).toBe(0);

      // The held tick reached the owning service twice with the same tick time (its id), and the survivor
      // finished it; the owning service does such a tick once (see the installations tests).
      expect(requestsOf(held)).toHaveLength(2);
      expect(ticksLogged(survivor.output(), 'credential_validation', 'tick done').has(held)).toBe(true);

      for (const schedule of ['credential_validation', 'template_health', 'log_cleanup'] as const) {
        const unfinished = ticksLogged(victim.output(), schedule, 'tick started');
        for (const done of ticksLogged(victim.output(), schedule, 'tick done')) unfinished.delete(done);
        const ticks = ticksOf(responder.of(schedule));
        for (const [tick, count] of ticks) {
          // Only a tick the killed replica had started and not finished is asked for a second time.
          if (unfinished.has(tick)) expect(count).toBeLessThanOrEqual(2);
          else expect({ tick, count }).toEqual({ tick, count: 1 });
        }
        // Every tick the killed replica left unfinished was finished by the survivor.
        const survivorDone = ticksLogged(survivor.output(), schedule, 'tick done');
        expect([...unfinished].filter((tick) => !survivorDone.has(tick))).toEqual([]);
      }

      // No tick was missed from the held one on: while one replica held a dead tick, the other ran the rest.
      const times = [...ticksOf(responder.of('credential_validation')).keys()]
        .map((t) => Date.parse(t))
        .filter((t) => t >= Date.parse(held))
        .sort((a, b) => a - b);
      const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
      expect(gaps.filter((gap) => gap !== every)).toEqual([]);
    } finally {
      release.resolve();
      for (const replica of replicas) await replica.kill();
      await responder.stop();
      await deleteQueueKeys(env.redisUrl, killedPrefix);
    }
  });
});
