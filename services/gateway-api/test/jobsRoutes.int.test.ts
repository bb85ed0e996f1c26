import type { ScheduleStatus } from '@orbital/contracts';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type IdentityStack, login, loginAdmin, type Session, startIdentityStack } from './identityStack.ts';
import { startJobsService } from './startJobsService.ts';

let stack: IdentityStack;
let admin: Session;
let user: Session;
let queuePrefix: string;
let stopJobs: (() => Promise<void>) | undefined;

beforeAll(async () => {
  stack = await startIdentityStack();
  const app = stack.app;
  if (!app) throw new Error('no gateway');
  admin = await loginAdmin(app);
  const credentials = { email: 'operator-not@orbital.test', password: 'a user pass phrase of 2025' };
  const created = await app.inject({
    method: 'POST',
    url: '/api/users',
    headers: bearer(admin),
    payload: { ...credentials, name: 'Not an admin' },
  });
  if (created.statusCode !== 201) throw new Error(created.body);
  user = await login(app, credentials.email, credentials.password);

  // The real jobs service on the stack's NATS and Redis, asking the stack's installations service:
  // hourly schedules tick once at creation, so each schedule has exactly one run to show.
  queuePrefix = `${stack.env.queuePrefix}-jobs`;
  const jobs = await startJobsService(
    {
      ...stack.env.env,
      QUEUE_PREFIX: queuePrefix,
      JOBS_CREDENTIAL_VALIDATION_EVERY_MS: '3600000',
      JOBS_TEMPLATE_HEALTH_EVERY_MS: '3600000',
      JOBS_LOG_CLEANUP_EVERY_MS: '3600000',
      JOBS_ATTEMPTS: '1',
    },
    stack.logger,
  );
  stopJobs = () => jobs.stop();
});

afterAll(async () => {
  await stopJobs?.();
  const redis = new Redis(stack.env.redisUrl);
  const keys = await redis.keys(`${queuePrefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  await stack?.stop();
});

describe('GET /api/jobs/status', () => {
  it('shows a global admin each schedule with its last run and outcome', async () => {
    const app = stack.app;
    if (!app) throw new Error('no gateway');
    const deadline = Date.now() + 20000;
    let statuses: ScheduleStatus[] = [];
    for (;;) {
      const response = await app.inject({ method: 'GET', url: '/api/jobs/status', headers: bearer(admin) });
      expect(response.statusCode).toBe(200);
      expect(response.json().success).toBe(true);
      statuses = response.json().data;
      if (statuses.every((s) => s.last_run?.finished_at)) break;
      if (Date.now() > deadline) throw new Error(`schedules did not all run: ${JSON.stringify(statuses)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(statuses.map((s) => [s.schedule, s.every_ms])).toEqual([
      ['credential_validation', 3600000],
      ['template_health', 3600000],
      ['log_cleanup', 3600000],
    ]);
    for (const status of statuses) {
      expect(status.failed_last_24h).toBe(0);
      expect(status.last_run).toMatchObject({ outcome: 'succeeded', attempts: 1, error: null });
      expect(status.last_run?.duration_ms).toBeGreaterThanOrEqual(0);
    }
    // Each run's result is what installations reported for that work.
    expect(statuses.map((s) => Object.keys(s.last_run?.result ?? {}).sort())).toEqual([
      ['due', 'installation_ids', 'queued'],
      ['templates_updated'],
      ['audit_entries_removed', 'audit_retention_days', 'removed'],
    ]);
  });

  it('refuses a user who is not a global admin, and anyone not logged in', async () => {
    const app = stack.app;
    if (!app) throw new Error('no gateway');
    const forbidden = await app.inject({ method: 'GET', url: '/api/jobs/status', headers: bearer(user) });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ success: false, error: { code: 'forbidden' } });
    const anonymous = await app.inject({ method: 'GET', url: '/api/jobs/status' });
    expect(anonymous.statusCode).toBe(401);
  });
});
