/**
 * Satellites against the real processes (settings, satellite-registry, gateway-api) on the real
 * PostgreSQL, NATS and Redis. Run: `npm run bench:registry`. Needs `wrk` (`apt-get install wrk`).
 *
 * 1. The command poll (`GET /api/satellites/:id/commands?wait_ms=0`, API key, NATS, one SQL statement)
 *    side by side with its ceiling, an HTTP -> NATS -> PostgreSQL primary-key read of the same satellite
 *    rows (bench/pkCeiling.ts), both driven by wrk with the same connections, rotating over the
 *    satellites, in alternating rounds with the median ratio (CEILING_ROUNDS, CEILING_SECONDS, CEILING_CONNECTIONS).
 * 2. Simulated satellites as the satellite behaves: a heartbeat every 30 s, a poll whenever the answer
 *    says (`next_poll_ms`), a batch of events every 3 s; SIMULATIONS="200:180,1000:60" (satellites:seconds).
 *    An error is any answer other than 200 or one slower than 10 s.
 *
 * Satellites are seeded straight into the registry's tables (registering 1,000 through the API costs
 * 1,000 Argon2 hashes at the production cost): each has a key id of its own and one shared secret hashed
 * with cheap Argon2 parameters; every key is verified once in a warm-up, as a real key is once per
 * gateway replica. Each has a pending command and a history of five finished ones.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ChildService, createTestEnvironment, startServiceProcess } from '@orbital/testing';
import argon2 from 'argon2';
import pg from 'pg';
import { cpuSeconds, percentile, printTable } from './stats.ts';

const simulations = (process.env.SIMULATIONS ?? '200:180,1000:60').split(',').map((s) => {
  const [count, seconds] = s.split(':').map(Number);
  return { count: count as number, seconds: seconds as number };
});
const ceilingSeconds = Number(process.env.CEILING_SECONDS ?? 10);
const ceilingConnections = Number(process.env.CEILING_CONNECTIONS ?? 32);
// The machine is shared: alternating rounds and the median ratio say more than one long round each.
const ceilingRounds = Number(process.env.CEILING_ROUNDS ?? 4);
const seeded = Math.max(...simulations.map((s) => s.count), 200);
const load = () => loadavg()[0]?.toFixed(2) ?? '?';

const env = await createTestEnvironment();
const children: ChildService[] = [];
const spawned: ChildProcess[] = [];
const db = new pg.Client({ ...env.postgres });
const port = 20000 + Math.floor(Math.random() * 20000);
const base = `http://127.0.0.1:${port}`;

async function waitForHttp(url: string) {
  for (let i = 0; i < 300; i += 1) {
    if (
      await fetch(url)
        .then((r) => r.status < 500)
        .catch(() => false)
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

/** wrk's requests per second and 99th percentile latency (ms) for a Lua script of requests. */
async function wrk(script: string, url: string) {
  const { stdout } = await promisify(execFile)('wrk', [
    '-t2',
    `-c${ceilingConnections}`,
    `-d${ceilingSeconds}s`,
    '--latency',
    '-s',
    script,
    url,
  ]);
  const perSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const p99text = /\s99%\s+([\d.]+)(us|ms|s)/.exec(stdout);
  const p99 = p99text ? Number(p99text[1]) * (p99text[2] === 'us' ? 0.001 : p99text[2] === 's' ? 1000 : 1) : Number.NaN;
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  if (non2xx > 0) throw new Error(`wrk saw ${non2xx} failed answers:\n${stdout}`);
  return { perSecond: Math.round(perSecond), p99: Number(p99.toFixed(2)) };
}

try {
  const common = {
    ...env.env,
    DB_SETUP_SERVICE_TIMEOUT_MS: '5000',
    LOG_LEVEL: 'info',
    // BENCH_PROFILE=<dir>: every service writes a CPU profile there when it stops.
    ...(process.env.BENCH_PROFILE ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_PROFILE}` } : {}),
  };
  children.push(await startServiceProcess('services/settings/src/main.ts', common, { readyTimeoutMs: 60000 }));
  children.push(
    await startServiceProcess('services/satellite-registry/src/main.ts', common, { readyTimeoutMs: 60000 }),
  );
  children.push(
    await startServiceProcess(
      'services/gateway-api/src/main.ts',
      { ...common, PORT: String(port), HOST: '127.0.0.1', EVENTS_RATE_LIMIT_MAX_REQUESTS: '100000' },
      { readyTimeoutMs: 60000 },
    ),
  );
  await waitForHttp(`${base}/healthz`);
  for (let i = 0; i < 50; i += 1) {
    const setup = await fetch(`${base}/api/db/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"type":"postgresql"}',
    });
    if (setup.ok || setup.status === 409) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await db.connect();
  await db.query('SET search_path = registry');

  const secret = 'B'.repeat(43);
  const hash = await argon2.hash(secret, { type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 });
  const satellites = Array.from({ length: seeded }, (_, i) => ({
    id: randomUUID(),
    keyId: `sk_${i.toString(16).padStart(24, '0')}`,
    key: `sk_${i.toString(16).padStart(24, '0')}.${secret}`,
  }));
  await db.query(
    `INSERT INTO satellites (id, name, satellite_type, team_id, status, api_key_id, api_key_hash, registered_at,
       last_heartbeat_at, last_command_at)
     SELECT id, 'bench-' || ord, 'team', 'team-' || (ord % 50), 'active', key_id, $3, now(), now(), now()
     FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS t(id, key_id, ord)`,
    [satellites.map((s) => s.id), satellites.map((s) => s.keyId), hash],
  );
  await db.query(
    `INSERT INTO satellite_commands (id, satellite_id, team_id, command_type, priority, priority_rank, payload,
       status, attempts, created_at, updated_at, completed_at)
     SELECT gen_random_uuid(), s.id, s.team_id, 'spawn', 'normal', 2,
       jsonb_build_object('team_id', s.team_id, 'installation_id', 'inst-' || n),
       CASE WHEN n < 5 THEN 'completed' ELSE 'pending' END, CASE WHEN n < 5 THEN 1 ELSE 0 END,
       now() - (6 - n) * interval '1 minute', now(), CASE WHEN n < 5 THEN now() END
     FROM satellites s CROSS JOIN generate_series(0, 5) AS n`,
  );
  await db.query('ANALYZE satellites; ANALYZE satellite_commands');

  // Warm-up: every key verified once (Argon2), every pending command delivered.
  await Promise.all(
    Array.from({ length: 16 }, async (_, worker) => {
      for (let i = worker; i < satellites.length; i += 16) {
        const s = satellites[i] as (typeof satellites)[number];
        const r = await fetch(`${base}/api/satellites/${s.id}/commands?wait_ms=0`, {
          headers: { authorization: `Bearer ${s.key}` },
        });
        if (r.status !== 200) throw new Error(`warm-up poll: ${r.status} ${await r.text()}`);
        await r.arrayBuffer();
      }
    }),
  );

  // 1. The poll and its ceiling, side by side.
  const ceilingPort = port + 1;
  for (const role of ['db', 'http']) {
    const child = spawn(process.execPath, ['bench/pkCeiling.ts'], {
      env: { ...process.env, ...common, ROLE: role, PORT: String(ceilingPort) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    spawned.push(child);
  }
  await waitForHttp(`http://127.0.0.1:${ceilingPort}/satellites/${satellites[0]?.id}`);
  const dir = mkdtempSync(join(tmpdir(), 'orbital-bench-'));
  const rotation = satellites.slice(0, 200);
  const lua = (paths: string[], auths: string[]) => `
local paths = {${paths.map((p) => `"${p}"`).join(',')}}
local auths = {${auths.map((a) => `"${a}"`).join(',')}}
local i = 0
request = function()
  i = (i % #paths) + 1
  return wrk.format("GET", paths[i], { ["authorization"] = auths[i] })
end`;
  const pollScript = join(dir, 'poll.lua');
  writeFileSync(
    pollScript,
    lua(
      rotation.map((s) => `/api/satellites/${s.id}/commands?wait_ms=0`),
      rotation.map((s) => `Bearer ${s.key}`),
    ),
  );
  const ceilingScript = join(dir, 'ceiling.lua');
  writeFileSync(
    ceilingScript,
    lua(
      rotation.map((s) => `/satellites/${s.id}`),
      rotation.map(() => 'none'),
    ),
  );
  const ceilingRows: Array<Record<string, string | number>> = [];
  const ratios: number[] = [];
  for (let round = 1; round <= ceilingRounds; round += 1) {
    // CPU milliseconds per request of the two processes each path runs through (HTTP side, PostgreSQL
    // side): steadier than requests per second while others use the cores.
    const cpuOf = (pids: Array<number | undefined>) =>
      pids.reduce<number>((sum, pid) => sum + (pid === undefined ? 0 : cpuSeconds(pid)), 0);
    const ceilingPids = spawned.map((child) => child.pid);
    const pollPids = [children[2]?.process.pid, children[1]?.process.pid];
    let before = cpuOf(ceilingPids);
    const ceiling = await wrk(ceilingScript, `http://127.0.0.1:${ceilingPort}`);
    const ceilingCpu = ((cpuOf(ceilingPids) - before) * 1000) / (ceiling.perSecond * ceilingSeconds);
    const ceilingLoad = load();
    before = cpuOf(pollPids);
    const poll = await wrk(pollScript, base);
    const pollCpu = ((cpuOf(pollPids) - before) * 1000) / (poll.perSecond * ceilingSeconds);
    ratios.push(poll.perSecond / ceiling.perSecond);
    ceilingRows.push({
      round,
      'ceiling req/s': ceiling.perSecond,
      'ceiling p99 ms': ceiling.p99,
      'poll req/s': poll.perSecond,
      'poll p99 ms': poll.p99,
      'poll / ceiling': Number((poll.perSecond / ceiling.perSecond).toFixed(2)),
      'CPU ms/req ceiling': Number(ceilingCpu.toFixed(3)),
      'CPU ms/req poll': Number(pollCpu.toFixed(3)),
      'load average': `${ceilingLoad} / ${load()}`,
    });
  }
  ratios.sort((a, b) => a - b);
  const median =
    ((ratios[Math.floor((ratios.length - 1) / 2)] ?? 0) + (ratios[Math.ceil((ratios.length - 1) / 2)] ?? 0)) / 2;
  printTable(
    `Command poll against the HTTP -> NATS -> PostgreSQL primary-key ceiling (wrk, ${ceilingConnections} connections, ${ceilingSeconds} s each, 200 satellites in rotation); median poll / ceiling ${median.toFixed(2)}`,
    ceilingRows,
  );
  for (const child of spawned) child.kill('SIGTERM');

  // 2. Simulated satellites.
  const heartbeat = JSON.stringify({
    system: {
      cpu_percent: 10,
      memory: { used_mb: 100, total_mb: 1000 },
      network_status: 'online',
      process_counts: { total: 1, running: 1, failed: 0 },
      uptime_seconds: 100,
    },
    processes: [],
  });
  const eventBatch = (teamId: string | null) =>
    JSON.stringify({
      events: Array.from({ length: 5 }, () => ({
        id: randomUUID(),
        type: 'mcp.client.connected',
        timestamp: new Date().toISOString(),
        data: {
          session_id: randomUUID(),
          client_type: 'vscode',
          user_agent: 'vscode/1.99',
          transport: 'sse',
          ip_address: '10.0.0.1',
          team_id: teamId,
        },
      })),
    });
  const rows: Array<Record<string, string | number>> = [];
  for (const { count, seconds } of simulations) {
    const population = satellites.slice(0, count);
    const latencies: Record<'poll' | 'heartbeat' | 'events', number[]> = { poll: [], heartbeat: [], events: [] };
    const errors: Record<'poll' | 'heartbeat' | 'events', number> = { poll: 0, heartbeat: 0, events: 0 };
    const deadline = Date.now() + seconds * 1000;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, Math.min(ms, deadline - Date.now()))));
    const call = async (
      kind: 'poll' | 'heartbeat' | 'events',
      s: (typeof satellites)[number],
      init: RequestInit,
      path: string,
    ) => {
      const t0 = performance.now();
      try {
        const r = await fetch(`${base}/api/satellites/${s.id}/${path}`, {
          ...init,
          headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
          signal: AbortSignal.timeout(10_000),
        });
        const text = await r.text();
        latencies[kind].push(performance.now() - t0);
        if (r.status !== 200) {
          errors[kind] += 1;
          return null;
        }
        return JSON.parse(text) as { data?: { polling?: { next_poll_ms?: number } } };
      } catch {
        errors[kind] += 1;
        return null;
      }
    };
    const loadAtStart = load();
    await Promise.all(
      population.map(async (s, index) => {
        // Spread over the intervals, as satellites started at different times are.
        const teamId = null;
        const beats = (async () => {
          await sleep(Math.random() * 30_000);
          while (Date.now() < deadline) {
            await call('heartbeat', s, { method: 'POST', body: heartbeat }, 'heartbeat');
            await sleep(30_000);
          }
        })();
        const polls = (async () => {
          await sleep(Math.random() * 30_000);
          while (Date.now() < deadline) {
            const answer = await call('poll', s, { method: 'GET' }, 'commands?wait_ms=0');
            await sleep(answer?.data?.polling?.next_poll_ms ?? 30_000);
          }
        })();
        const events = (async () => {
          await sleep(Math.random() * 3_000);
          while (Date.now() < deadline) {
            await call('events', s, { method: 'POST', body: eventBatch(teamId) }, 'events');
            await sleep(3_000);
          }
        })();
        await Promise.all([beats, polls, events]);
      }),
    );
    for (const kind of ['poll', 'heartbeat', 'events'] as const) {
      const sorted = latencies[kind].sort((a, b) => a - b);
      rows.push({
        satellites: count,
        seconds,
        request: kind,
        count: sorted.length,
        errors: errors[kind],
        'p50 ms': Number(percentile(sorted, 50).toFixed(1)),
        'p99 ms': Number(percentile(sorted, 99).toFixed(1)),
        'max ms': Number((sorted[sorted.length - 1] ?? Number.NaN).toFixed(1)),
        'load average': `${loadAtStart} / ${load()}`,
      });
    }
  }
  printTable('Simulated satellites: heartbeat every 30 s, poll as told, 5 events every 3 s', rows);
} finally {
  for (const child of spawned) child.kill('SIGKILL');
  await db.end().catch(() => {});
  for (const child of children.reverse()) await child.stop();
  await env.cleanup();
}
