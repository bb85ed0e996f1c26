/**
 * Server log cleanup at scale: 1,000 installations with 1,000 lines each, cut to the newest 100 per
 * installation. Real PostgreSQL and NATS, the real installations service (which owns the server_logs
 * table and answers `installations.jobs.log_cleanup`) and the real jobs service on Redis.
 *
 * Reports: the first cleanup as a tick of the jobs service (BullMQ job, duration from its record), the
 * same request made directly over NATS after the table is refilled, a no-op run (nothing above the
 * limit) before and after vacuum, and a typical run (100 new lines per installation since the last).
 *
 * Stops with a message, measuring nothing, when the installations service did not create server_logs.
 * Run: `npm run bench:jobs-cleanup`.
 */
import { PassThrough } from 'node:stream';
import { createBus } from '@orbital/bus';
import { loadConfig } from '@orbital/config';
import { type CallerIdentity, jobsStatusSubject, jobWorkSubjects, serviceIdentity } from '@orbital/contracts';
import { writeDatabaseSetupRecord } from '@orbital/db';
import { createApp as createInstallationsApp } from '@orbital/installations/app';
import { configSchema as installationsConfigSchema } from '@orbital/installations/config';
import { createJobsApp } from '@orbital/jobs/app';
import { configSchema as jobsConfigSchema } from '@orbital/jobs/config';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment } from '@orbital/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { printTable } from './stats.ts';

const installations = 1000;
const linesEach = 1000;
const keep = 100;

const env = await createTestEnvironment();
const logger = createLogger({ name: 'bench', level: 'silent' });
const db = new pg.Client({ ...env.postgres });
let exitCode = 0;
try {
  await writeDatabaseSetupRecord(
    { ...env.postgres, ssl: false },
    { databaseType: 'postgresql', selectedAt: new Date(), version: '1.0' },
  );
  const installationsBus = await createBus({
    ...env.busOptions('installations'),
    logger,
  });
  const installationsApp = await createInstallationsApp({
    bus: installationsBus,
    logger,
    config: loadConfig(installationsConfigSchema, env.env),
  });
  await installationsBus.flush();
  await db.connect();
  const table = await db.query<{ t: string | null }>(`SELECT to_regclass('installations.server_logs')::text AS t`);
  if (!table.rows[0]?.t) {
    console.error(
      'installations.server_logs does not exist after the installations service started (its migrations ' +
        'did not run). Nothing was measured.',
    );
    exitCode = 2;
  } else {
    await db.query('SET search_path TO installations');
    await seed(db);
    const rows = await count(db);
    const report: Array<Record<string, string | number>> = [];

    // 1. The first cleanup as the jobs service runs it: one tick, recorded by BullMQ.
    const jobsLogs = new PassThrough();
    jobsLogs.resume();
    const jobsBus = await createBus({ ...env.busOptions('jobs'), logger });
    const jobs = await createJobsApp({
      bus: jobsBus,
      logger: createLogger({ name: 'jobs', level: 'silent', destination: jobsLogs }),
      config: loadConfig(jobsConfigSchema, {
        ...env.env,
        // Each schedule ticks once when created, then hourly: exactly one cleanup tick here.
        JOBS_CREDENTIAL_VALIDATION_EVERY_MS: '3600000',
        JOBS_TEMPLATE_HEALTH_EVERY_MS: '3600000',
        JOBS_LOG_CLEANUP_EVERY_MS: '3600000',
        JOBS_LOG_LINES_KEPT: String(keep),
        JOBS_WORK_TIMEOUT_MS: '600000',
      }),
    });
    const client = await createBus({ ...env.busOptions('bench'), logger });
    const tick = await waitForCleanupTick(client);
    await verify(db);
    report.push({
      run: 'first cleanup, jobs tick (BullMQ)',
      rows_before: rows,
      removed: Number(tick.result?.removed),
      ms: Number(tick.duration_ms),
    });
    await jobs.stopWorkers();
    await jobsBus.drain();
    await jobs.close();

    // 2. The same work requested directly, as a retried tick would, after refilling the table.
    await db.query('TRUNCATE server_logs');
    await seed(db);
    report.push({ run: 'first cleanup, direct request', rows_before: await count(db), ...(await cleanup(client)) });
    await verify(db);

    // 3. Nothing above the limit: what most 10-minute ticks cost.
    // Straight after the big delete the index still holds 900,000 dead entries to step over; autovacuum
    // clears them between ticks in production, so the no-op is measured both ways.
    report.push({ run: 'no-op, right after the delete', rows_before: await count(db), ...(await cleanup(client)) });
    await db.query('VACUUM ANALYZE server_logs');
    report.push({ run: 'no-op, after vacuum', rows_before: await count(db), ...(await cleanup(client)) });

    // 4. A typical tick: 100 new lines per installation since the last one.
    await db.query(`
      INSERT INTO server_logs (installation_id, team_id, log_level, message, "timestamp", event_id, line_no)
      SELECT i.id, i.team_id, 'info', 'later line ' || g, now(), i.id, ${linesEach} + g
      FROM mcp_installations i CROSS JOIN generate_series(1, 100) g`);
    await db.query('ANALYZE server_logs');
    report.push({ run: '100 new lines each', rows_before: await count(db), ...(await cleanup(client)) });

    printTable(`Server log cleanup: ${installations} installations, keep ${keep} lines each (times in ms)`, report);
    await client.drain();
  }
  await db.end();
  await (installationsApp as { stop?: () => Promise<void> }).stop?.();
  await installationsBus.drain();
  await installationsApp.database.pool.end();
} finally {
  const redis = new Redis(env.redisUrl);
  const keys = await redis.keys(`${env.queuePrefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  await env.cleanup();
}
process.exit(exitCode);

/** One template, `installations` installations and `linesEach` lines each, in set-based statements. */
async function seed(client: pg.Client): Promise<void> {
  const exists = await client.query('SELECT count(*)::int AS n FROM mcp_installations');
  if (exists.rows[0].n === 0) {
    await client.query(`
      INSERT INTO mcp_server_templates (slug, name, transport, url)
      VALUES ('bench', 'Bench server', 'http', 'https://mcp.example.test/mcp')`);
    await client.query(`
      INSERT INTO mcp_installations (team_id, team_slug, template_id, name, secret_config)
      SELECT 'team-' || (g % 50), 'team-' || (g % 50), t.id, 'bench-' || g, 'not read by the cleanup'
      FROM generate_series(1, ${installations}) g CROSS JOIN mcp_server_templates t`);
  }
  // Lines in time order, so the newest 100 have the highest ids (line_no 901..1000).
  await client.query(`
    INSERT INTO server_logs (installation_id, team_id, log_level, message, "timestamp", event_id, line_no)
    SELECT i.id, i.team_id, 'info', 'line ' || g || ' of a stdio server''s stderr',
           now() - make_interval(secs => ${linesEach} - g), i.id, g
    FROM generate_series(1, ${linesEach}) g CROSS JOIN mcp_installations i
    ORDER BY g`);
  await client.query('ANALYZE server_logs');
}

async function count(client: pg.Client): Promise<number> {
  return (await client.query('SELECT count(*)::int AS n FROM server_logs')).rows[0].n;
}

/** Exactly `keep` lines per installation remain, and they are the newest. */
async function verify(client: pg.Client): Promise<void> {
  const wrong = await client.query(
    `SELECT count(*)::int AS n FROM (
       SELECT installation_id FROM server_logs GROUP BY installation_id
       HAVING count(*) <> ${keep} OR min(line_no) <> ${linesEach - keep + 1}) w`,
  );
  const kept = await count(client);
  if (wrong.rows[0].n !== 0 || kept !== installations * keep) {
    throw new Error(`cleanup left ${kept} lines; ${wrong.rows[0].n} installations without exactly the newest ${keep}`);
  }
}

async function cleanup(client: Awaited<ReturnType<typeof createBus>>) {
  const started = performance.now();
  const reply = await client.request(
    jobWorkSubjects.logCleanup,
    { keep_per_installation: keep },
    { identity: serviceIdentity('jobs'), timeoutMs: 600000 },
  );
  return { removed: reply.removed, ms: Math.round(performance.now() - started) };
}

/** An operator, as gateway-api would speak for one reading GET /api/jobs/status. */
const operator: CallerIdentity = { kind: 'user', user_id: 'bench', global_role: 'global_admin', memberships: [] };

async function waitForCleanupTick(client: Awaited<ReturnType<typeof createBus>>) {
  const deadline = Date.now() + 600000;
  for (;;) {
    const statuses = await client.request(jobsStatusSubject, {}, { identity: operator });
    const run = statuses.find((s) => s.schedule === 'log_cleanup')?.last_run;
    if (run?.outcome === 'succeeded') return run;
    if (run?.outcome === 'failed') throw new Error(`the cleanup tick failed: ${run.error}`);
    if (Date.now() > deadline) throw new Error('the cleanup tick did not finish in 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
