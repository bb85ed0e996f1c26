/**
 * Satellites against the real processes (settings, satellite-registry, gateway-api) on the real
 * PostgreSQL, NATS and Redis. Run: `npm run bench:registry`. Needs `wrk` (`apt-get install wrk`).
 *
 * 1. The command poll (`GET /api/satellites/:id/commands?wait_ms=0`, API key, NATS, one SQL statement)
 *    side by side with its ceiling, an HTTP -> NATS -> PostgreSQL primary-key read of the same satellite
 *    rows (bench/pkCeiling.ts), both driven by wrk with the same connections, rotating over the
 *    satellites, in alternating rounds with the median ratio (CEILING_ROUNDS, 0 to skip; CEILING_SECONDS,
 *    CEILING_CONNECTIONS).
 * 2. Simulated satellites as the satellite behaves (bench/fleet.ts): a heartbeat every 30 s, a poll
 *    whenever the answer says (`next_poll_ms`), a batch of events every 3 s; SIMULATIONS="200:180,1000:60"
 *    (satellites:seconds, empty to skip). An error is any answer other than 200 or one slower than 10 s.
 * 3. A gateway-api restart under a known fleet (RESTART="1000:60", satellites:seconds, empty to skip):
 *    gateway-api is stopped and started again, and as soon as it is ready every satellite, having waited
 *    for it, makes its first requests within a second and goes on as above, while a signed-in admin
 *    lists satellites every second (a user route). Reported: errors, and p99 after the first 5 s.
 * 4. Satellites registering at once (REGISTRATIONS="200:60", satellites:seconds, empty to skip): each
 *    with a registration token of its own (real tokens, real Argon2 at the production cost), retrying as soon
 *    as `Retry-After` allows when told to (sooner than the satellite's own backoff), then working as in 2
 *    from its first second.
 *
 * Satellites are seeded straight into the registry's tables (registering 1,000 through the API costs
 * 1,000 Argon2 hashes at the production cost), as registration leaves them: each has a key id of its
 * own, one shared secret hashed with Argon2 at the production cost (argon2's defaults, as registration
 * uses) and the key's fast digest beside it. Every key is used once in a warm-up, as a fleet has used its
 * keys before a restart. Each has a pending command and a history of five finished ones.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { satelliteKeyDigest } from '@orbital/crypto';
import { type ChildService, createTestEnvironment, startServiceProcess } from '@orbital/testing';
import argon2 from 'argon2';
import pg from 'pg';
import { createRecorder, register, runSatellite, type SimulatedSatellite, timed } from './fleet.ts';
import { cpuSeconds, machineCpuSeconds, printTable } from './stats.ts';

const phases = (text: string) =>
  text
    .split(',')
    .filter(Boolean)
    .map((s) => {
      const [count, seconds] = s.split(':').map(Number);
      return { count: count as number, seconds: seconds as number };
    });
const simulations = phases(process.env.SIMULATIONS ?? '200:180,1000:60');
const restart = phases(process.env.RESTART ?? '1000:60')[0];
const registrations = phases(process.env.REGISTRATIONS ?? '200:60')[0];
/** The first stretch after a restart or a burst, left out of the "after" percentiles. */
const settleMs = 5000;
const ceilingSeconds = Number(process.env.CEILING_SECONDS ?? 10);
const ceilingConnections = Number(process.env.CEILING_CONNECTIONS ?? 32);
// The machine is shared: alternating rounds and the median ratio say more than one long round each.
const ceilingRounds = Number(process.env.CEILING_ROUNDS ?? 4);
const seeded = Math.max(...simulations.map((s) => s.count), restart?.count ?? 0, 200);
const admin = { email: 'owner@orbital.test', password: 'seven quiet orbits of a patient moon' };
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
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    // BENCH_PROFILE=<dir>: every service writes a CPU profile there when it stops.
    ...(process.env.BENCH_PROFILE ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_PROFILE}` } : {}),
  };
  const startGateway = () =>
    startServiceProcess(
      'services/gateway-api/src/main.ts',
      {
        ...common,
        PORT: String(port),
        HOST: '127.0.0.1',
        EVENTS_RATE_LIMIT_MAX_REQUESTS: '100000',
      },
      { readyTimeoutMs: 60000 },
    );
  children.push(await startServiceProcess('services/settings/src/main.ts', common, { readyTimeoutMs: 60000 }));
  children.push(
    await startServiceProcess('services/satellite-registry/src/main.ts', common, { readyTimeoutMs: 60000 }),
  );
  children.push(await startGateway());
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
  // The production cost (argon2's defaults, as registration hashes): a key whose digest went unused would
  // cost this much of gateway-api's CPU, as every key did after a restart before digests were kept.
  const hash = await argon2.hash(secret, { type: argon2.argon2id });
  const satellites = Array.from({ length: seeded }, (_, i) => {
    const keyId = `sk_${i.toString(16).padStart(24, '0')}`;
    return { id: randomUUID(), keyId, key: `${keyId}.${secret}`, digest: satelliteKeyDigest(keyId, secret) };
  });
  await db.query(
    `INSERT INTO satellites (id, name, satellite_type, team_id, status, api_key_id, api_key_hash, api_key_digest,
       registered_at, last_heartbeat_at, last_command_at)
     SELECT id, 'bench-' || ord, 'team', 'team-' || (ord % 50), 'active', key_id, $3, digest, now(), now(), now()
     FROM unnest($1::uuid[], $2::text[], $4::text[]) WITH ORDINALITY AS t(id, key_id, digest, ord)`,
    [satellites.map((s) => s.id), satellites.map((s) => s.keyId), hash, satellites.map((s) => s.digest)],
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

  // Warm-up: every key used once, every pending command delivered.
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
  if (ceilingRounds > 0) {
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
  }

  // 2. Simulated satellites.
  const rows: Array<Record<string, string | number>> = [];
  for (const { count, seconds } of simulations) {
    const recorder = createRecorder();
    const loadAtStart = load();
    const deadline = Date.now() + seconds * 1000;
    // Spread over the intervals, as satellites started at different times are.
    await Promise.all(
      satellites.slice(0, count).map((s) => runSatellite(base, s, recorder, { deadline, firstWithinMs: 30_000 })),
    );
    rows.push(...recorder.rows(0, { satellites: count, seconds, 'load average': `${loadAtStart} / ${load()}` }));
  }
  if (rows.length > 0) {
    printTable('Simulated satellites: heartbeat every 30 s, poll as told, 5 events every 3 s', rows);
  }

  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(admin),
  });
  if (login.status !== 200) throw new Error(`admin login: ${login.status} ${await login.text()}`);
  const adminToken = ((await login.json()) as { data: { token: string } }).data.token;
  /** A person's route beside the fleet: the satellite list, every second, until the deadline. */
  const userLoop = async (recorder: ReturnType<typeof createRecorder>, deadline: number) => {
    while (Date.now() < deadline) {
      await timed(recorder, 'user', `${base}/api/satellites?limit=20`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      await new Promise((r) => setTimeout(r, Math.max(0, Math.min(1000, deadline - Date.now()))));
    }
  };
  /** gateway-api's count of keys it had not seen, by how it checked them (digest, argon2, busy, invalid). */
  const firstSights = async () => {
    const text = await fetch(`${base}/metrics`)
      .then((r) => r.text())
      .catch(() => '');
    const seen = [...text.matchAll(/orbital_satellite_key_first_sights_total\{[^}]*check="(\w+)"[^}]*\} (\d+)/g)];
    return seen.map(([, check, n]) => `${check} ${n}`).join(', ') || 'none';
  };

  /**
   * CPU seconds each process on the path used during a phase (gateway-api, satellite-registry, settings,
   * this bench's simulated satellites) and the whole machine's: says whether the path or the machine is
   * what a latency waited for.
   */
  const cpuMeter = () => {
    const pids = () => ({
      gateway: children[2]?.process.pid,
      registry: children[1]?.process.pid,
      settings: children[0]?.process.pid,
    });
    const read = () => {
      const { gateway, registry, settings } = pids();
      return [cpuSeconds(gateway), cpuSeconds(registry), cpuSeconds(settings), cpuSeconds(), machineCpuSeconds()];
    };
    const started = read();
    const startedAt = performance.now();
    return () => {
      const [gateway, registry, settings, bench, machine] = read().map((v, i) => v - (started[i] ?? 0));
      const seconds = (performance.now() - startedAt) / 1000;
      return `CPU s over ${seconds.toFixed(0)} s: gateway-api ${gateway?.toFixed(1)}, satellite-registry ${registry?.toFixed(1)}, settings ${settings?.toFixed(1)}, simulated satellites ${bench?.toFixed(1)}, machine ${machine?.toFixed(1)} of ${(seconds * cpus().length).toFixed(0)}`;
    };
  };

  // 3. A gateway-api restart under the known fleet, beside the same burst against the running gateway.
  if (restart) {
    const fleet = satellites.slice(0, restart.count);
    const burst = async (title: string) => {
      const cpu = cpuMeter();
      const recorder = createRecorder();
      const loadAtStart = load();
      const deadline = Date.now() + restart.seconds * 1000;
      await Promise.all([
        userLoop(recorder, deadline),
        ...fleet.map((s) => runSatellite(base, s, recorder, { deadline, firstWithinMs: 1000 })),
      ]);
      printTable(title, recorder.rows(settleMs, { 'load average': `${loadAtStart} / ${load()}` }));
      console.log(cpu());
    };
    await burst(
      `Reference: the same ${restart.count} satellites, each making its first requests within 1 s, against the running gateway-api, ${restart.seconds} s`,
    );
    await (children[2] as ChildService).stop();
    children[2] = await startGateway();
    await burst(
      `gateway-api restarted: the ${restart.count} known satellites, each making its first requests within 1 s of its readiness, ${restart.seconds} s`,
    );
    console.log(`keys first seen by the new gateway-api process: ${await firstSights()}`);
  }

  // 4. Satellites registering at once, then working.
  if (registrations) {
    // Made one after another beforehand: the burst is the registrations, not the admin making tokens.
    const tokens: string[] = [];
    while (tokens.length < registrations.count) {
      const response = await fetch(`${base}/api/satellites/registration-tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: '{}',
      });
      if (response.status >= 300) throw new Error(`registration token: ${response.status} ${await response.text()}`);
      tokens.push(((await response.json()) as { data: { authorization: string } }).data.authorization);
    }
    const cpu = cpuMeter();
    const before = await firstSights();
    const recorder = createRecorder();
    const loadAtStart = load();
    const deadline = Date.now() + registrations.seconds * 1000;
    let registered = 0;
    let lastRegisteredMs = 0;
    await Promise.all([
      userLoop(recorder, deadline),
      ...tokens.map(async (authorization, i) => {
        const satellite: SimulatedSatellite | null = await register(
          base,
          authorization,
          `burst-${i}`,
          recorder,
          deadline,
        );
        if (!satellite) return;
        registered += 1;
        lastRegisteredMs = performance.now() - recorder.started;
        await runSatellite(base, satellite, recorder, { deadline, firstWithinMs: 1000 });
      }),
    ]);
    printTable(
      `${registrations.count} satellites registering at once, then working, ${registrations.seconds} s: ${registered} registered, the last after ${(lastRegisteredMs / 1000).toFixed(1)} s; keys first seen by gateway-api before / after: ${before} / ${await firstSights()}`,
      recorder.rows(settleMs, { 'load average': `${loadAtStart} / ${load()}` }),
    );
    console.log(cpu());
  }
} finally {
  for (const child of spawned) child.kill('SIGKILL');
  await db.end().catch(() => {});
  for (const child of children.reverse()) await child.stop();
  await env.cleanup();
}
