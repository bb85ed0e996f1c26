import { randomUUID } from 'node:crypto';
import { createBus } from '@orbital/bus';
import { loadConfig } from '@orbital/config';
import { type AuditEntry, auditSubjects, serviceIdentity } from '@orbital/contracts';
import { createJobsApp, type JobsApp } from '@orbital/jobs/app';
import { configSchema as jobsConfigSchema } from '@orbital/jobs/config';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditEntryFixture } from './auditEntryFixture.ts';
import { callerAs, type IdentityStack, loginAdmin, startIdentityStack } from './identityStack.ts';

/**
 * Retention as it runs in production: the jobs service's cleanup tick asks the settings service to prune,
 * and the settings service removes the entries older than audit.retention_days, as changed by an admin.
 */
let stack: IdentityStack;
let jobs: JobsApp;
let call: ReturnType<typeof callerAs>;
let stopJobs: () => Promise<void> = async () => {};

beforeAll(async () => {
  stack = await startIdentityStack();
  call = callerAs(stack.app, await loginAdmin(stack.app));
  const bus = await createBus({ ...stack.env.busOptions('jobs'), logger: stack.logger });
  jobs = await createJobsApp({
    bus,
    logger: stack.logger,
    // The cleanup tick every second instead of every ten minutes; the others rarely.
    config: loadConfig(jobsConfigSchema, {
      ...stack.env.env,
      JOBS_LOG_CLEANUP_EVERY_MS: '1000',
      JOBS_CREDENTIAL_VALIDATION_EVERY_MS: '3600000',
      JOBS_TEMPLATE_HEALTH_EVERY_MS: '3600000',
    }),
  });
  stopJobs = async () => {
    await jobs.stopWorkers();
    await jobs.close();
    await bus.drain();
  };
});

afterAll(async () => {
  await stopJobs();
  await stack?.stop();
});

it('removes entries older than audit.retention_days at the cleanup tick, and records that it did', async () => {
  const kind = `retention_${randomUUID().slice(0, 8)}`;
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
  const entry = (id: string, occurredAt: string) =>
    auditEntryFixture({
      occurred_at: occurredAt,
      action: 'installation.created',
      actor: { kind: 'process', id: 'installations', email: null, name: null },
      target: { kind, id },
    });
  const gateway = stack.gateways[0];
  if (!gateway) throw new Error('no gateway');
  // Kept under the default of 90 days, gone once the retention is 5.
  await gateway.bus.request(
    auditSubjects.record,
    { entries: [entry('old', daysAgo(40)), entry('recent', daysAgo(2))] },
    { identity: serviceIdentity('installations') },
  );
  const targets = async () =>
    ((await call('GET', `/api/audit?target_kind=${kind}`)).json().data.entries as AuditEntry[]).map((e) => e.target.id);
  await new Promise((resolve) => setTimeout(resolve, 2500));
  expect(await targets()).toEqual(['recent', 'old']);

  expect((await call('PUT', '/api/settings/audit.retention_days', { value: '5' })).statusCode).toBe(200);
  const deadline = Date.now() + 30000;
  while ((await targets()).length > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  expect(await targets()).toEqual(['recent']);

  // The removal is recorded by settings itself, delivered to the log like every entry.
  let pruned: AuditEntry[] = [];
  while (pruned.length === 0 && Date.now() < deadline + 15000) {
    pruned = (await call('GET', '/api/audit?action=audit.pruned')).json().data.entries;
    if (pruned.length === 0) await new Promise((r) => setTimeout(r, 200));
  }
  expect(pruned[0]).toMatchObject({
    source: 'settings',
    actor: { kind: 'process', id: 'jobs' },
    details: { retention_days: 5 },
  });
  const cleanup = (await jobs.readStatus()).find((s) => s.schedule === 'log_cleanup');
  expect(cleanup?.last_run?.result).toMatchObject({ audit_retention_days: 5 });
});
