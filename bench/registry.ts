/**
 * Satellite polling and heartbeats through gateway-api, against the real processes (settings for
 * database setup, satellite-registry, gateway-api) on the real PostgreSQL and NATS, at 100, 1,000 and
 * 10,000 registered satellites. Shows that a poll's cost does not grow with the number of satellites:
 * the API key is a cache hit after its first use, and the queue query reads one satellite's index range.
 * Run: `npm run bench:registry` (BENCH_POLLS, BENCH_CONCURRENCY, BENCH_SIZES override the defaults).
 *
 * Satellites are seeded straight into the registry's tables (registering 10,000 through the API would
 * cost 10,000 Argon2 hashes at the production cost, about 17 minutes on two cores): each gets a key id
 * of its own, one shared secret hashed once with cheap Argon2 parameters (the verification happens once
 * per key, in the warm-up, never in the measured polls), five finished commands of history and one
 * pending command.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createTestEnvironment, startServiceProcess } from '@orbital/testing';
import argon2 from 'argon2';
import pg from 'pg';
import { measure, printTable } from './stats.ts';

const sizes = (process.env.BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const polls = Number(process.env.BENCH_POLLS ?? 6000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);

const env = await createTestEnvironment();
const port = 20000 + Math.floor(Math.random() * 20000);
const base = `http://127.0.0.1:${port}`;
const children: Array<{ stop(): Promise<unknown> }> = [];
const db = new pg.Client({ ...env.postgres });
try {
  const common = { ...env.env, DB_SETUP_SERVICE_TIMEOUT_MS: '5000' };
  children.push(await startServiceProcess('services/settings/src/main.ts', common));
  children.push(await startServiceProcess('services/satellite-registry/src/main.ts', common));
  // The gateway logs at warn, so request logging does not weigh on the figures; it says nothing when
  // ready at that level, hence its own spawn and the wait for /healthz below.
  const gateway = spawn(process.execPath, ['services/gateway-api/src/main.ts'], {
    env: { ...process.env, ...common, LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push({
    stop: () =>
      new Promise((resolve) => {
        gateway.once('exit', resolve);
        gateway.kill('SIGTERM');
      }),
  });
  for (let i = 0; i < 200; i += 1) {
    if (
      await fetch(`${base}/healthz`)
        .then((r) => r.ok)
        .catch(() => false)
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  for (let i = 0; i < 50; i += 1) {
    const setup = await fetch(`${base}/api/db/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"type":"postgresql"}',
    });
    if (setup.ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await db.connect();
  await db.query('SET search_path = registry');

  const secret = 'B'.repeat(43);
  const hash = await argon2.hash(secret, { type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 });
  const satellites: Array<{ id: string; key: string }> = [];
  const keyFor = (i: number) => `sk_${i.toString(16).padStart(24, '0')}.${secret}`;

  async function seedUpTo(count: number) {
    const from = satellites.length;
    const ids = Array.from({ length: count - from }, () => randomUUID());
    ids.forEach((id, i) => {
      satellites.push({ id, key: keyFor(from + i) });
    });
    for (let start = 0; start < ids.length; start += 2000) {
      const chunk = ids.slice(start, start + 2000);
      const keyIds = chunk.map((_, i) => `sk_${(from + start + i).toString(16).padStart(24, '0')}`);
      await db.query(
        `INSERT INTO satellites (id, name, satellite_type, team_id, status, api_key_id, api_key_hash, registered_at,
           last_heartbeat_at, last_command_at)
         SELECT id, 'bench-' || ord, CASE WHEN ord % 2 = 0 THEN 'team' ELSE 'global' END,
           CASE WHEN ord % 2 = 0 THEN 'team-' || (ord % 50) END, 'active', key_id, $3, now(), now(), now()
         FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS t(id, key_id, ord)`,
        [chunk, keyIds, hash],
      );
      await db.query(
        `INSERT INTO satellite_commands (id, satellite_id, team_id, command_type, priority, priority_rank, payload,
           status, attempts, created_at, updated_at, completed_at)
         SELECT gen_random_uuid(), s.id, COALESCE(s.team_id, 'team-0'), 'spawn', 'normal', 2,
           jsonb_build_object('team_id', COALESCE(s.team_id, 'team-0'), 'installation_id', 'inst-' || n),
           CASE WHEN n < 5 THEN 'completed' ELSE 'pending' END, CASE WHEN n < 5 THEN 1 ELSE 0 END,
           now() - (6 - n) * interval '1 minute', now(), CASE WHEN n < 5 THEN now() END
         FROM satellites s CROSS JOIN generate_series(0, 5) AS n WHERE s.id = ANY($1::uuid[])`,
        [chunk],
      );
    }
    await db.query('ANALYZE satellites; ANALYZE satellite_commands');
  }

  const heartbeat = JSON.stringify({
    system: {
      cpu_percent: 10,
      memory: { used_mb: 100, total_mb: 1000 },
      network_status: 'online',
      process_counts: { total: 1, running: 1, failed: 0 },
      uptime_seconds: 100,
    },
    processes: [
      {
        process_id: 'fs-team-inst-1',
        installation_id: 'inst-1',
        team_id: 'team-1',
        status: 'running',
        health: 'healthy',
        request_count: 3,
      },
    ],
  });

  async function request(method: 'GET' | 'POST', satellite: { id: string; key: string }, path: string, body?: string) {
    const response = await fetch(`${base}/api/satellites/${satellite.id}/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${satellite.key}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body } : {}),
    });
    if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }

  const rows: Array<Record<string, string | number>> = [];
  for (const size of sizes) {
    await seedUpTo(size);
    const population = satellites.slice(0, size);
    let cursor = 0;
    const next = () => population[cursor++ % population.length] as { id: string; key: string };
    // Warm-up: every satellite's key is verified once (Argon2) and its pending command delivered.
    await measure(() => request('GET', next(), 'commands'), { count: size, concurrency });
    cursor = 0;
    const poll = await measure(() => request('GET', next(), 'commands'), { count: polls, concurrency });
    const beat = await measure(() => request('POST', next(), 'heartbeat', heartbeat), {
      count: Math.round(polls / 3),
      concurrency,
    });
    const commandRows = (await db.query('SELECT count(*)::int AS n FROM satellite_commands')).rows[0].n;
    rows.push({
      satellites: size,
      'command rows': commandRows,
      'polls/s': poll.perSecond,
      'poll p50 ms': poll.p50,
      'poll p99 ms': poll.p99,
      'heartbeats/s': beat.perSecond,
      'heartbeat p50 ms': beat.p50,
      'heartbeat p99 ms': beat.p99,
    });
  }
  printTable(
    `Satellite polling and heartbeats through gateway-api (${polls} polls per size, ${concurrency} in flight)`,
    rows,
  );
} finally {
  await db.end().catch(() => {});
  await Promise.all(children.map((c) => c.stop()));
  await env.cleanup();
}
