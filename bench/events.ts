/**
 * Satellite events per second on the path users run: the real processes (settings, satellite-registry,
 * installations, gateway-api) on the real PostgreSQL, NATS and Redis; satellites registered through the
 * API with real registration tokens and real API keys; batches of 100 `mcp.tool.executed` events over
 * HTTP to gateway-api, stored in JetStream, read by the installations service's own durable consumer
 * and committed to its `request_logs` table. Beside it, in the same run, raw JetStream publishes of the
 * same events with as many in flight. Every event is checked stored exactly once.
 * Run: `npm run bench:events` (EVENTS=20000 SATELLITES=20 to change the load).
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { createBus, ensureStream, publishEvent } from '@orbital/bus';
import { satelliteEvents, satelliteEventsStream } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { type ChildService, createTestEnvironment, startServiceProcess, type TestEnvironment } from '@orbital/testing';
import pg from 'pg';
import { cpuSeconds, cpuSecondsBetween, cpuSecondsOfCommand, machineCpuSeconds, printTable } from './stats.ts';

const total = Number(process.env.EVENTS ?? 20000);
const satellites = Number(process.env.SATELLITES ?? 20);
const batchSize = 100;
const logger = createLogger({ name: 'bench', level: 'silent' });
const admin = { email: 'owner@orbital.test', password: 'seven quiet orbits of a patient moon' };

function executed(installationId: string, teamId: string) {
  return {
    id: randomUUID(),
    type: 'mcp.tool.executed' as const,
    timestamp: new Date().toISOString(),
    data: {
      installation_id: installationId,
      team_id: teamId,
      server_slug: 'bench',
      tool_name: 'search_issues',
      session_id: 'session-1',
      request_params: { query: 'is:open label:bug', per_page: 20 },
      duration_ms: 84,
      success: true,
      error_message: null,
      executed_at: new Date().toISOString(),
    },
  };
}

async function api<T>(base: string, method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  const parsed = text ? JSON.parse(text) : null;
  return (parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed) as T;
}

/** Kept-alive connections for the satellites' batches, as a satellite keeps its connection to the backend. */
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/**
 * One batch over HTTP with a satellite's API key. Node's http module rather than fetch: undici's fetch
 * costs the bench more CPU per request than gateway-api spends on a batch, on the same two cores.
 */
function postEvents(port: number, satelliteId: string, key: string, body: string): Promise<{ accepted: number }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/satellites/${satelliteId}/events`,
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`events: ${res.statusCode} ${text.slice(0, 300)}`));
          else resolve((JSON.parse(text) as { data: { accepted: number } }).data);
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Raw JetStream: the same events published with as many in flight as the HTTP path has. */
async function rawPublish(env: TestEnvironment): Promise<number> {
  const bus = await createBus({
    servers: env.natsUrl,
    identity: env.identity,
    name: 'raw',
    prefix: `${env.subjectPrefix}raw${randomUUID().slice(0, 6)}`,
    streamMaxBytes: env.streamMaxBytes,
    logger,
  });
  await ensureStream(bus, satelliteEventsStream);
  const events = Array.from({ length: total }, () => executed(randomUUID(), 'team-raw'));
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: satellites * batchSize }, async () => {
      while (next < events.length) {
        const e = events[next++] as ReturnType<typeof executed>;
        await publishEvent(bus, satelliteEvents[e.type], e, { tokens: { satellite_id: 'raw' }, msgId: e.id });
      }
    }),
  );
  const perSecond = total / ((performance.now() - started) / 1000);
  await bus.drain();
  return perSecond;
}

const env = await createTestEnvironment();
const children: ChildService[] = [];
const db = new pg.Client({ ...env.postgres });
try {
  const port = 20000 + Math.floor(Math.random() * 25000);
  const base = `http://127.0.0.1:${port}`;
  const common = {
    ...env.env,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    LOG_LEVEL: 'info',
    // The load is the point here, not the per-satellite limit.
    EVENTS_RATE_LIMIT_MAX_REQUESTS: '100000',
    // BENCH_PROFILE=<dir>: every service writes a CPU profile there when it stops.
    ...(process.env.BENCH_PROFILE ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_PROFILE}` } : {}),
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  };
  for (const entry of [
    'services/settings/src/main.ts',
    'services/satellite-registry/src/main.ts',
    'services/installations/src/main.ts',
  ]) {
    children.push(await startServiceProcess(entry, common, { readyTimeoutMs: 60000 }));
  }
  children.push(
    await startServiceProcess(
      'services/gateway-api/src/main.ts',
      { ...common, PORT: String(port), HOST: '127.0.0.1' },
      { readyTimeoutMs: 60000 },
    ),
  );
  await api(base, 'POST', '/api/db/setup', { type: 'postgresql' });
  let token = '';
  for (let i = 0; i < 100 && !token; i += 1) {
    token = await api<{ token: string }>(base, 'POST', '/api/auth/login', admin)
      .then((r) => r.token)
      .catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return '';
      });
  }
  const team = await api<{ id: string }>(base, 'POST', '/api/teams', { slug: 'bench', name: 'Bench' }, token);
  await api(
    base,
    'POST',
    '/api/mcp/servers',
    { slug: 'bench', name: 'Bench', transport: 'stdio', command: 'node', args: ['server.js'] },
    token,
  );
  const installation = await api<{ id: string }>(
    base,
    'POST',
    `/api/teams/${team.id}/mcp/installations`,
    { server_slug: 'bench', name: 'bench' },
    token,
  );
  // Real satellites: a registration token each, registered through the API, holding real API keys.
  const registered: Array<{ id: string; key: string }> = [];
  for (let s = 0; s < satellites; s += 1) {
    const registration = await api<{ token: string }>(
      base,
      'POST',
      `/api/teams/${team.id}/satellites/registration-tokens`,
      {},
      token,
    );
    const satellite = await api<{ satellite_id: string; api_key: string }>(
      base,
      'POST',
      '/api/satellites/register',
      { name: `bench-${s}`, capabilities: ['stdio'], system_info: { os: 'linux' } },
      `service_satellite_${registration.token}`,
    );
    registered.push({ id: satellite.satellite_id, key: satellite.api_key });
  }
  await db.connect();
  const storedCount = async () =>
    Number(
      (
        await db.query('SELECT count(*)::int AS n FROM installations.request_logs WHERE installation_id = $1', [
          installation.id,
        ])
      ).rows[0].n,
    );

  // Warm-up: each key verified (Argon2, once per key and gateway), JIT, sockets, stream files.
  for (const satellite of registered) {
    await api(
      base,
      'POST',
      `/api/satellites/${satellite.id}/events`,
      { events: [executed(installation.id, team.id)] },
      satellite.key,
    );
  }
  while ((await storedCount()) < registered.length) await new Promise((resolve) => setTimeout(resolve, 50));
  await rawPublish(env);

  const load = loadavg()[0]?.toFixed(2);
  const rawCpuBefore = cpuSeconds();
  const raw = await rawPublish(env);
  const rawCpu = cpuSeconds() - rawCpuBefore;
  // CPU seconds of every process of the path while it runs: the bench (HTTP client), gateway-api,
  // installations (the other services are idle during it), the NATS server and PostgreSQL (shared with
  // whatever else uses them meanwhile), and the whole machine, which shows what others took.
  const [gatewayPid, installationsPid] = [children[3]?.process.pid, children[2]?.process.pid];
  const pathCpu = () => ({
    bench: cpuSeconds(),
    gateway: cpuSeconds(gatewayPid),
    installations: cpuSeconds(installationsPid),
    nats: cpuSecondsOfCommand('nats-server'),
    postgres: cpuSecondsOfCommand('postgres'),
    machine: machineCpuSeconds(),
  });
  // Every batch is made and encoded before the clock starts, as the raw publishes' events are: what is
  // measured is the path, not the bench making events on the cores the path needs.
  const sent: string[] = [];
  const batchesPerSatellite = Math.ceil(total / batchSize / satellites);
  const work = registered.map((satellite) => {
    const bodies: Array<{ body: string; count: number }> = [];
    for (let b = 0; b < batchesPerSatellite && sent.length < total; b += 1) {
      const events = Array.from({ length: Math.min(batchSize, total - sent.length) }, () =>
        executed(installation.id, team.id),
      );
      sent.push(...events.map((e) => e.id));
      bodies.push({ body: JSON.stringify({ events }), count: events.length });
    }
    return { satellite, bodies, lastId: bodies.length > 0 ? sent[sent.length - 1] : undefined };
  });
  // The last event each satellite sends: the consumer reads the stream in order, so once these are
  // stored the others should be (a full count checks it after).
  const lastIds = work.flatMap((w) => (w.lastId ? [w.lastId] : []));
  const cpuBefore = pathCpu();
  const before = await storedCount();
  const started = performance.now();
  await Promise.all(
    work.map(async ({ satellite, bodies }) => {
      // Each satellite sends one batch at a time and waits for its answer, as a real satellite does.
      for (const { body, count } of bodies) {
        const reply = await postEvents(port, satellite.id, satellite.key, body);
        if (reply.accepted !== count) throw new Error(`batch partly refused: ${JSON.stringify(reply)}`);
      }
    }),
  );
  const accepted = performance.now();
  // Waiting for the last event of every satellite first: 20 lookups by key, where counting every stored
  // row each 20 ms took PostgreSQL's CPU from the consumer it measures. Then the full count, which also
  // catches an event stored out of order.
  const lastStored = async () =>
    Number(
      (
        await db.query('SELECT count(*)::int AS n FROM installations.request_logs WHERE id = ANY($1::uuid[])', [
          lastIds,
        ])
      ).rows[0].n,
    );
  while ((await lastStored()) < lastIds.length) await new Promise((resolve) => setTimeout(resolve, 20));
  while ((await storedCount()) < before + sent.length) await new Promise((resolve) => setTimeout(resolve, 20));
  const stored = performance.now();
  const cpuAfter = pathCpu();
  const endLoad = loadavg()[0]?.toFixed(2);

  const check = (
    await db.query(
      `SELECT count(*)::int AS total, count(DISTINCT l.id)::int AS distinct_ids
       FROM installations.request_logs l WHERE l.id = ANY($1::uuid[])`,
      [sent],
    )
  ).rows[0] as { total: number; distinct_ids: number };
  const extra = (await storedCount()) - before - sent.length;
  if (check.total !== sent.length || check.distinct_ids !== sent.length || extra !== 0) {
    throw new Error(`stored ${check.total} (${check.distinct_ids} distinct, ${extra} unexpected) of ${sent.length}`);
  }
  const acceptedRate = sent.length / ((accepted - started) / 1000);
  const storedRate = sent.length / ((stored - started) / 1000);
  const cpu = (key: keyof typeof cpuAfter) => {
    const [before, after] = [cpuBefore[key], cpuAfter[key]];
    const seconds =
      typeof before === 'number' ? (after as number) - before : cpuSecondsBetween(before, after as Map<number, number>);
    return Number(seconds.toFixed(2));
  };
  const perEvent = (seconds: number) => Math.round((seconds * 1e6) / sent.length);
  printTable(
    `${sent.length} events, ${satellites} real satellites (API keys) sending batches of ${batchSize}, one at a time each; load average ${load} before, ${endLoad} after; every event stored exactly once`,
    [
      {
        path: 'raw JetStream publish (acked)',
        'events/s': Math.round(raw),
        'ratio to raw': 1,
        'CPU s': `bench ${rawCpu.toFixed(2)}`,
      },
      {
        path: 'HTTP -> gateway-api -> JetStream (200 received)',
        'events/s': Math.round(acceptedRate),
        'ratio to raw': Number((acceptedRate / raw).toFixed(2)),
      },
      {
        path: 'HTTP -> gateway-api -> JetStream -> installations -> PostgreSQL (stored)',
        'events/s': Math.round(storedRate),
        'ratio to raw': Number((storedRate / raw).toFixed(2)),
        'CPU s': `bench ${cpu('bench')}, gateway-api ${cpu('gateway')}, installations ${cpu('installations')}`,
      },
    ],
  );
  // CPU time per stored event of each process on the path: what a faster path has to cut, since every
  // process shares the machine's cores (/proc ticks are 10 ms, so a figure moves by a few µs per run).
  const processes = ['bench', 'gateway', 'installations', 'nats', 'postgres'] as const;
  const pathSeconds = processes.reduce((sum, key) => sum + cpu(key), 0);
  printTable(
    `CPU µs per stored event while the ${sent.length} events went through (wall ${Math.round((((stored - started) / 1000) * 1e6) / sent.length)} µs per event)`,
    [
      {
        ...Object.fromEntries(processes.map((key) => [key === 'gateway' ? 'gateway-api' : key, perEvent(cpu(key))])),
        path: perEvent(pathSeconds),
        machine: perEvent(cpu('machine')),
      },
    ],
  );
} finally {
  await db.end().catch(() => {});
  for (const child of children.reverse()) await child.stop();
  await env.cleanup();
}
