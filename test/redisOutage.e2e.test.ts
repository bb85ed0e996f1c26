import { clientConnectedBatch, freePort, type PrivateRedisServer, startRedisServer } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, eventually, type Platform, startPlatform } from './platformHarness.ts';

/**
 * The real processes on a Redis of the test's own, stopped and started again empty (as Redis without
 * persistence comes back from a restart or a failover): login answers 503 at once instead of a late 500,
 * event intake goes on, each process's readiness names Redis, and once it is back the jobs service puts its
 * schedules back and login works, with no restart of anything.
 */
let redis: PrivateRedisServer;
let platform: Platform;
let jobsOps: number;
let admin: string;
let satellite: { id: string; key: string };

type Envelope<T> = { success: boolean; data: T; error?: { code: string; details?: Record<string, unknown> } };

/** A request that must be answered, and promptly: a client giving up after 5 s counts as no answer. */
async function send(path: string, init: RequestInit & { base?: string } = {}) {
  const response = await fetch(`${init.base ?? platform.api}${path}`, { ...init, signal: AbortSignal.timeout(5000) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as Envelope<unknown> };
}

const login = () =>
  send('/api/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(platform.admin),
  });

const sendEvents = () =>
  send(`/api/satellites/${satellite.id}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${satellite.key}` },
    body: clientConnectedBatch(),
  });

const readiness = async (base: string) => {
  const response = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000) });
  return {
    status: response.status,
    body: (await response.json()) as { status: string; checks: Record<string, string> },
  };
};

beforeAll(async () => {
  redis = await startRedisServer();
  jobsOps = await freePort();
  platform = await startPlatform({
    env: {
      REDIS_URL: redis.url,
      JOBS_CREDENTIAL_VALIDATION_EVERY_MS: '2000',
      JOBS_TEMPLATE_HEALTH_EVERY_MS: '2000',
      JOBS_LOG_CLEANUP_EVERY_MS: '2000',
      JOBS_SCHEDULE_CHECK_MS: '500',
    },
    envFor: (name): Record<string, string> => (name === 'jobs' ? { METRICS_PORT: String(jobsOps) } : {}),
  });
  await call(platform.api, 'POST', '/api/db/setup', { body: { type: 'postgresql' } });
  admin = (
    await eventually('the first admin to exist', async () =>
      call<Envelope<{ token: string }>>(platform.api, 'POST', '/api/auth/login', { body: platform.admin }),
    )
  ).data.token;
  const token = await call<Envelope<{ authorization: string }>>(
    platform.api,
    'POST',
    '/api/satellites/registration-tokens',
    { token: admin, body: {} },
  );
  const registered = await fetch(`${platform.api}/api/satellites/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: token.data.authorization },
    body: JSON.stringify({ name: 'redis-outage' }),
  });
  const { data } = (await registered.json()) as Envelope<{ satellite_id: string; api_key: string }>;
  satellite = { id: data.satellite_id, key: data.api_key };
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  await redis?.close();
});

describe('Redis away, then back empty', () => {
  it('answers login 503, takes events, reports Redis in readiness, and heals when it returns', async () => {
    expect((await login()).status).toBe(200);
    expect((await sendEvents()).status).toBe(200);
    await eventually('the jobs service to be ready', async () =>
      (await readiness(`http://127.0.0.1:${jobsOps}`)).status === 200 ? true : undefined,
    );

    // Mail on, so a mail request reaches its limits (nothing is mailed: the address has no account).
    const mailOn = await send('/api/settings/global.send_mail', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ value: true }),
    });
    expect(mailOn.status).toBe(200);
    const resetRequest = () =>
      send('/api/auth/password-reset', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@orbital.test' }),
      });
    expect((await resetRequest()).status).toBe(202);

    await redis.stop();
    try {
      await eventually('gateway-api to see Redis gone', async () => {
        const ready = await readiness(platform.api);
        return ready.body.checks.redis === 'failing' ? ready : undefined;
      }).then((ready) => {
        // Reported, not gating: the Service keeps the gateway for everything that needs no Redis.
        expect(ready).toMatchObject({
          status: 200,
          body: { status: 'ready', checks: { nats: 'ok', redis: 'failing' } },
        });
      });
      // Login cannot count its attempts: refused as an outage, at once, never a 500 after the retries.
      const refused = await login();
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ success: false, error: { code: 'unavailable' } });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Nor can a mail request: refused too, rather than let anyone flood a mailbox meanwhile.
      const reset = await resetRequest();
      expect(reset).toMatchObject({ status: 503, body: { success: false, error: { code: 'unavailable' } } });
      expect(Number(reset.headers.get('retry-after'))).toBeGreaterThan(0);
      // Event intake needs no Redis: its per-satellite limit is skipped meanwhile.
      const events = await sendEvents();
      expect(events.status).toBe(200);
      expect(events.body).toMatchObject({ data: { accepted: 1 } });
      // A session already handed out goes on.
      expect((await send('/api/users/me', { headers: { authorization: `Bearer ${admin}` } })).status).toBe(200);

      const jobs = await eventually('the jobs service to report Redis gone', async () => {
        const ready = await readiness(`http://127.0.0.1:${jobsOps}`);
        return ready.status === 503 ? ready : undefined;
      });
      expect(jobs.body).toMatchObject({ status: 'not_ready', checks: { redis: 'failing', schedules: 'failing' } });
      const status = await send('/api/jobs/status', { headers: { authorization: `Bearer ${admin}` } });
      expect(status).toMatchObject({ status: 503, body: { error: { code: 'unavailable' } } });
    } finally {
      await redis.start();
    }

    // Back, and empty: the schedules are put back and ticking, login works again.
    await eventually('the jobs service to be ready again', async () =>
      (await readiness(`http://127.0.0.1:${jobsOps}`)).status === 200 ? true : undefined,
    );
    const schedules = await eventually('every schedule to run again', async () => {
      const status = await send('/api/jobs/status', { headers: { authorization: `Bearer ${admin}` } });
      const list = status.body.data as Array<{ schedule: string; next_run_at: string | null; last_run: unknown }>;
      return status.status === 200 && list.every((s) => s.next_run_at !== null && s.last_run !== null)
        ? list
        : undefined;
    });
    expect(schedules).toHaveLength(3);
    expect(platform.logs('jobs')).toContain('schedule was missing from Redis');
    await eventually('login to work again', async () => ((await login()).status === 200 ? true : undefined));
    expect((await readiness(platform.api)).body.checks.redis).toBe('ok');

    const errors = platform
      .logs('gateway-api')
      .split('\n')
      .filter((line) => line.includes('"level":"error"') || line.includes('"level":50'));
    expect(errors).toEqual([]);
  });
});
