/**
 * Satellite gateway benchmarks, on demand (not in tests):
 *   npm run bench:satellite [-- calls=100000]
 *
 * 1. Throughput against what a user would pick instead to put the same stdio server on HTTP:
 *    supergateway (stateful Streamable HTTP, one server process per session) and mcp-proxy, each
 *    a process of its own like the satellite, all serving server-everything's `echo`, all called by
 *    the same client (the SDK v2 client, over Node's http module unless `client=fetch`), in the same run. The satellite is called through
 *    execute_mcp_tool, the peers call `echo` directly. One client sequentially, then 16 clients
 *    concurrently; 2025 (session) and 2026-07-28 (stateless) calls side by side where the gateway
 *    serves them. The direct stdio client is the floor every gateway adds to.
 * 2. The satellite process's memory over `calls` calls (flat, not growing), and the heap an in-process
 *    satellite keeps after a full collection (RSS also holds memory V8 has not handed back).
 * 3. tools/list tokens: the satellite's two tools against catalogues of 100 and 1,000 tools.
 * 4. Respawn latency of a dormant stdio server against its cold start measured alone.
 * The machine's load average is printed before and after: the figures mean little without it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { loadConfig } from '@orbital/config';
import { serverConfiguration } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { createSatelliteApp } from '../satellite/src/app.ts';
import { satelliteEnv } from '../satellite/src/config.ts';
import { createLoggingEventSink } from '../satellite/src/events/createLoggingEventSink.ts';
import { createRecordingEventSink } from '../satellite/src/events/createRecordingEventSink.ts';
import { metaTools } from '../satellite/src/gateway/createMetaToolServer.ts';
import { estimateToolTokens } from '../satellite/src/runtime/estimateTokens.ts';
import { nodeHttpFetch } from './nodeHttpFetch.ts';

const soakCalls = Number(process.argv.find((a) => a.startsWith('calls='))?.slice(6) ?? 100000);
/**
 * The HTTP client under every gateway's SDK client: Node's http module (`node-http`, the default,
 * cheaper per call) or undici's fetch (`client=fetch`), the same for all gateways in a run.
 */
const httpClient = process.argv.find((a) => a.startsWith('client='))?.slice(7) === 'fetch' ? 'fetch' : 'node-http';
const sequentialCalls = 3000;
const concurrentClients = 16;
const callsPerConcurrentClient = 400;
const warmupCalls = 300;

const root = new URL('..', import.meta.url);
const path = (relative: string) => fileURLToPath(new URL(relative, root));
const everything = path('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const node = process.execPath;

const load = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')} (1/5/15 min) on ${cpus().length} cores`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== 'object') throw new Error('no port');
  return address.port;
}

/** CPU time (user + system, ms) a process and all its descendants have used: the gateway and its servers. */
function treeCpuMs(root: number): number {
  const stats = new Map<number, { parent: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the name: state, ppid, ..., utime (12th) and stime (13th), in clock ticks of 10 ms.
      stats.set(Number(entry), { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const visit = (pid: number) => {
    total += stats.get(pid)?.ticks ?? 0;
    for (const [child, stat] of stats) if (stat.parent === pid) visit(child);
  };
  visit(root);
  return total * 10;
}

const rssMb = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
};

/**
 * Every gateway process started: each runs detached in its own group (so stopping it takes its
 * servers too), which also means nothing ends them when the bench fails halfway; on exit, whatever
 * way, the bench stops them all rather than leave them running on a shared machine.
 */
const started: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of started) stop(child);
});

/** Starts a gateway process and resolves once its port answers HTTP. */
async function startProcess(label: string, args: string[], port: number, env: Record<string, string> = {}) {
  const child = spawn(node, args, {
    env: { PATH: process.env.PATH ?? '', HOME: mkdtempSync(join(tmpdir(), 'bench-home-')), ...env },
    stdio: ['ignore', 'ignore', 'ignore'],
    detached: true,
  });
  started.push(child);
  const deadline = Date.now() + 30000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${label} exited with ${child.exitCode}`);
    try {
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(500) });
      return child;
    } catch {
      if (Date.now() > deadline) throw new Error(`${label} did not listen on ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function stop(child: ChildProcess) {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

type Era = 'legacy' | 'modern';
type Gateway = {
  label: string;
  url: URL;
  /** The gateway process, whose CPU time (with its servers') is counted per call. */
  pid?: number;
  toolCall: (i: number) => { name: string; arguments: Record<string, unknown> };
};

async function connect(url: URL, era: Era): Promise<Client> {
  const client = new Client(
    { name: 'bench', version: '1' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(url, httpClient === 'node-http' ? { fetch: nodeHttpFetch } : {}),
  );
  return client;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

type Figures = {
  /** The median of the rounds' calls/s: one round slowed by other work on the machine moves it little. */
  callsPerSecond: number;
  /** The slowest and fastest round, to show the spread. */
  roundRange: [number, number];
  p50: number;
  p99: number;
  /** CPU time of the gateway process and its servers per call. */
  cpuMsPerCall?: number;
  /** CPU time of the bench process (the clients) per call. */
  clientCpuMsPerCall: number;
};

async function measure(clients: Client[], gateway: Gateway, callsEach: number): Promise<Figures> {
  return combine([await batch(clients, gateway, callsEach)]);
}

type Batch = { durations: number[]; totalMs: number; cpuMs: number; clientCpuMs: number };

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** Figures of rounds measured at different times: calls/s is the median round, latencies over every call. */
function combine(batches: Batch[]): Figures {
  const durations = batches.flatMap((b) => b.durations).sort((a, b) => a - b);
  const rates = batches.map((b) => (b.durations.length / b.totalMs) * 1000);
  const cpuMs = batches.reduce((sum, b) => sum + b.cpuMs, 0);
  const clientCpuMs = batches.reduce((sum, b) => sum + b.clientCpuMs, 0);
  return {
    callsPerSecond: median(rates),
    roundRange: [Math.min(...rates), Math.max(...rates)],
    p50: percentile(durations, 0.5),
    p99: percentile(durations, 0.99),
    ...(batches.some((b) => b.cpuMs > 0) ? { cpuMsPerCall: cpuMs / durations.length } : {}),
    clientCpuMsPerCall: clientCpuMs / durations.length,
  };
}

/**
 * Each gateway and era gets its calls in slices taken in turn (A, B, C, B, C, A, ...), so a change
 * in the machine's load during the run (other work on a shared machine) falls on all of them alike
 * instead of on whichever ran at that moment.
 */
async function runInterleaved(gateways: Gateway[], eras: readonly Era[], slices = 10) {
  type Lane = { key: string; gateway: Gateway; clients: Client[]; sequential: Batch[]; concurrent: Batch[] };
  const lanes: Lane[] = [];
  const unserved = new Map<string, string>();
  for (const era of eras) {
    for (const gateway of gateways) {
      const key = `${gateway.label}|${era}`;
      try {
        const clients = await Promise.all(Array.from({ length: concurrentClients }, () => connect(gateway.url, era)));
        lanes.push({ key, gateway, clients, sequential: [], concurrent: [] });
      } catch (error) {
        unserved.set(key, `not served (${(error as Error).message.slice(0, 80)})`);
      }
    }
  }
  for (const lane of lanes) {
    await batch(lane.clients, lane.gateway, warmupCalls / 10);
    await batch([lane.clients[0] as Client], lane.gateway, warmupCalls);
  }
  for (let slice = 0; slice < slices; slice++) {
    // Each slice starts with another lane, so none always runs first (right after the 16-client
    // batch of another gateway, whose work may still be winding down) or always last.
    const order = lanes.map((_, i) => lanes[(i + slice) % lanes.length] as Lane);
    for (const lane of order)
      lane.sequential.push(await batch([lane.clients[0] as Client], lane.gateway, sequentialCalls / slices));
    for (const lane of order)
      lane.concurrent.push(await batch(lane.clients, lane.gateway, callsPerConcurrentClient / slices));
  }
  for (const lane of lanes) await Promise.all(lane.clients.map((client) => client.close().catch(() => {})));
  const results = new Map<string, { sequential: Figures; concurrent: Figures } | string>(unserved);
  for (const lane of lanes)
    results.set(lane.key, { sequential: combine(lane.sequential), concurrent: combine(lane.concurrent) });
  return results;
}

async function batch(clients: Client[], gateway: Gateway, callsEach: number): Promise<Batch> {
  const durations: number[] = [];
  const cpuBefore = gateway.pid ? treeCpuMs(gateway.pid) : 0;
  const clientBefore = process.cpuUsage();
  const began = performance.now();
  await Promise.all(
    clients.map(async (client, c) => {
      for (let i = 0; i < callsEach; i++) {
        const t = performance.now();
        const result = await client.callTool(gateway.toolCall(c * callsEach + i));
        if (result.isError) throw new Error(`${gateway.label}: ${JSON.stringify(result.content)}`);
        durations.push(performance.now() - t);
      }
    }),
  );
  const totalMs = performance.now() - began;
  const client = process.cpuUsage(clientBefore);
  return {
    durations,
    totalMs,
    cpuMs: gateway.pid ? treeCpuMs(gateway.pid) - cpuBefore : 0,
    clientCpuMs: (client.user + client.system) / 1000,
  };
}

const format = (f: Figures) =>
  `${f.callsPerSecond.toFixed(0).padStart(6)} calls/s (rounds ${f.roundRange[0].toFixed(0)}-${f.roundRange[1].toFixed(0)})  p50 ${f.p50.toFixed(2).padStart(6)} ms  p99 ${f.p99.toFixed(2).padStart(6)} ms${
    f.cpuMsPerCall === undefined ? '' : `  CPU ${f.cpuMsPerCall.toFixed(2)} ms/call`
  }  client CPU ${f.clientCpuMsPerCall.toFixed(2)} ms/call`;

console.log(
  `Satellite gateway benchmark, Node ${process.version}, clients over ${httpClient === 'node-http' ? "Node's http module" : "undici's fetch"}; before: ${load()}\n`,
);

// The gateways, each its own process serving the same server-everything over stdio.
const everythingInstallation = serverConfiguration.parse({
  process_id: 'everything-bench-1',
  installation_id: 'inst-everything',
  installation_name: 'everything',
  team_id: 'team-bench',
  team_slug: 'bench',
  server_slug: 'everything',
  transport: 'stdio',
  command: node,
  args: [everything, 'stdio'],
});
const configFile = join(mkdtempSync(join(tmpdir(), 'bench-satellite-')), 'servers.json');
writeFileSync(configFile, JSON.stringify({ servers: [everythingInstallation] }));
const [satellitePort, supergatewayPort, mcpProxyPort] = await Promise.all([freePort(), freePort(), freePort()]);
const satelliteProcess = await startProcess('satellite', [path('satellite/src/main.ts')], satellitePort, {
  PORT: String(satellitePort),
  LOG_LEVEL: 'warn',
  SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true',
  SATELLITE_CONFIG_FILE: configFile,
  PROCESS_IDLE_TIMEOUT_MS: '0',
});
const supergateway = await startProcess(
  'supergateway',
  [
    path('node_modules/supergateway/dist/index.js'),
    '--stdio',
    `${node} ${everything} stdio`,
    '--outputTransport',
    'streamableHttp',
    '--stateful',
    '--port',
    String(supergatewayPort),
    '--logLevel',
    'none',
  ],
  supergatewayPort,
);
const mcpProxy = await startProcess(
  'mcp-proxy',
  [
    path('node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs'),
    '--port',
    String(mcpProxyPort),
    '--host',
    '127.0.0.1',
    '--',
    node,
    everything,
    'stdio',
  ],
  mcpProxyPort,
);

const echo = (i: number) => ({ name: 'echo', arguments: { message: `m${i}` } });
const gateways: Gateway[] = [
  {
    label: 'Orbital satellite (execute_mcp_tool)',
    url: new URL(`http://127.0.0.1:${satellitePort}/mcp`),
    pid: satelliteProcess.pid as number,
    toolCall: (i) => ({
      name: 'execute_mcp_tool',
      arguments: { tool_path: 'everything:echo', arguments: { message: `m${i}` } },
    }),
  },
  {
    label: 'supergateway 4.0.0 --stateful',
    url: new URL(`http://127.0.0.1:${supergatewayPort}/mcp`),
    pid: supergateway.pid as number,
    toolCall: echo,
  },
  {
    label: 'mcp-proxy 6.7.19',
    url: new URL(`http://127.0.0.1:${mcpProxyPort}/mcp`),
    pid: mcpProxy.pid as number,
    toolCall: echo,
  },
];

// 1. Throughput.
const throughputLoad = load();
const results = await runInterleaved(gateways, ['legacy', 'modern']);
const throughputLoadAfter = load();
const direct = new Client({ name: 'bench-direct', version: '1' });
await direct.connect(new StdioClientTransport({ command: node, args: [everything, 'stdio'], stderr: 'ignore' }));
const directGateway: Gateway = { label: 'direct', url: new URL('http://unused'), toolCall: echo };
await measure([direct], directGateway, warmupCalls);
const directFigures = await measure([direct], directGateway, sequentialCalls);

console.log(
  `1. echo through each gateway: 1 client x ${sequentialCalls} sequential calls, then ${concurrentClients} clients x ${callsPerConcurrentClient} calls concurrently, after warm-up, in 10 rounds the gateways take in turn; calls/s is the median round\n   ${throughputLoad} before, ${throughputLoadAfter} after\n`,
);
console.log(`   direct SDK client over stdio (no gateway), sequential: ${format(directFigures)}\n`);
for (const era of ['legacy', 'modern'] as const) {
  console.log(
    `   ${era === 'legacy' ? '2025-11-25 clients (initialize, session)' : '2026-07-28 clients (stateless)'}:`,
  );
  for (const gateway of gateways) {
    const figures = results.get(`${gateway.label}|${era}`);
    if (typeof figures === 'string' || !figures) {
      console.log(`     ${gateway.label.padEnd(38)} ${figures}`);
      continue;
    }
    console.log(`     ${gateway.label.padEnd(38)} sequential ${format(figures.sequential)}`);
    console.log(`     ${''.padEnd(38)} ${concurrentClients} clients  ${format(figures.concurrent)}`);
  }
}
console.log('\n   Orbital against the best peer (ratio of median calls/s, same era; > 1 is faster):');
for (const era of ['legacy', 'modern'] as const) {
  const ours = results.get(`${gateways[0]?.label}|${era}`);
  const peers = gateways.slice(1).flatMap((g) => {
    const f = results.get(`${g.label}|${era}`);
    return typeof f === 'object' && f ? [f] : [];
  });
  if (typeof ours !== 'object' || !ours || peers.length === 0) {
    console.log(`     ${era}: no peer serves this era`);
    continue;
  }
  const best = (key: 'sequential' | 'concurrent') => Math.max(...peers.map((p) => p[key].callsPerSecond));
  const leanest = (key: 'sequential' | 'concurrent') => Math.min(...peers.map((p) => p[key].cpuMsPerCall ?? Infinity));
  const cpu = (key: 'sequential' | 'concurrent') => leanest(key) / (ours[key].cpuMsPerCall ?? Infinity);
  console.log(
    `     ${era.padEnd(7)} calls/s: sequential ${(ours.sequential.callsPerSecond / best('sequential')).toFixed(2)}x   ${concurrentClients} clients ${(ours.concurrent.callsPerSecond / best('concurrent')).toFixed(2)}x` +
      `   |  CPU per call (leanest peer / Orbital): sequential ${cpu('sequential').toFixed(2)}x   ${concurrentClients} clients ${cpu('concurrent').toFixed(2)}x`,
  );
}
const legacy = results.get(`${gateways[0]?.label}|legacy`);
const modern = results.get(`${gateways[0]?.label}|modern`);
if (typeof legacy === 'object' && legacy && typeof modern === 'object' && modern) {
  console.log(
    `   Orbital modern against Orbital legacy: sequential ${(modern.sequential.callsPerSecond / legacy.sequential.callsPerSecond).toFixed(2)}x, ${concurrentClients} clients ${(modern.concurrent.callsPerSecond / legacy.concurrent.callsPerSecond).toFixed(2)}x`,
  );
}
stop(supergateway);
stop(mcpProxy);

// 2. The satellite process's memory over many calls, half 2025 sessions, half 2026-07-28 clients.
const satelliteGateway = gateways[0] as Gateway;
const pid = satelliteProcess.pid as number;
console.log(
  `\n2. satellite process memory (RSS) over ${soakCalls} calls by ${concurrentClients} clients (8 of each era):`,
);
const soakClients = await Promise.all(
  Array.from({ length: concurrentClients }, (_, i) => connect(satelliteGateway.url, i % 2 ? 'modern' : 'legacy')),
);
const rounds = 4;
console.log(`   before: ${rssMb(pid).toFixed(1)} MB`);
for (let r = 1; r <= rounds; r++) {
  await measure(soakClients, satelliteGateway, Math.ceil(soakCalls / rounds / concurrentClients));
  console.log(`   after ${Math.round((soakCalls * r) / rounds)} calls: ${rssMb(pid).toFixed(1)} MB`);
}
await Promise.all(soakClients.map((client) => client.close()));
stop(satelliteProcess);

// 2b. What the process keeps: RSS also holds what V8 has not returned yet, so an in-process satellite
// (same server, same clients) is measured by its heap after a full collection, which only retained
// objects survive. The bench runs with --expose-gc for this.
const collect = () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return Number.NaN;
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};
{
  const silent = createLogger({ name: 'bench', level: 'silent' });
  const heapSatellite = createSatelliteApp({
    config: loadConfig(satelliteEnv, {
      LOG_LEVEL: 'silent',
      SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true',
      PROCESS_IDLE_TIMEOUT_MS: '0',
    }),
    servers: [everythingInstallation],
    // Events logged (silently) as a standalone satellite does; a recording sink would keep them all.
    events: createLoggingEventSink(silent),
    logger: silent,
  });
  await heapSatellite.start();
  const heapUrl = new URL('/mcp', await heapSatellite.app.listen({ port: 0, host: '127.0.0.1' }));
  const heapClients = await Promise.all(
    Array.from({ length: concurrentClients }, (_, i) => connect(heapUrl, i % 2 ? 'modern' : 'legacy')),
  );
  const heapCalls = Math.min(soakCalls, 40000);
  console.log(`   in-process satellite, heap after full GC (satellite and clients together), over ${heapCalls} calls:`);
  await measure(heapClients, { ...satelliteGateway, url: heapUrl }, warmupCalls / 10);
  const line = [`0: ${collect().toFixed(1)} MB`];
  for (let r = 1; r <= rounds; r++) {
    await measure(
      heapClients,
      { ...satelliteGateway, url: heapUrl },
      Math.ceil(heapCalls / rounds / concurrentClients),
    );
    line.push(`${Math.round((heapCalls * r) / rounds)}: ${collect().toFixed(1)} MB`);
  }
  console.log(`   ${line.join(', ')}`);
  await Promise.all(heapClients.map((client) => client.close()));
  await heapSatellite.close();
}

// 3. tools/list tokens.
const metaTokens = metaTools.reduce((sum, tool) => sum + estimateToolTokens(tool), 0);
const catalogue = (await direct.listTools()).tools;
const perToolTokens = catalogue.map((tool) => estimateToolTokens(tool));
console.log(`\n3. tools/list tokens (estimate: characters / 4), catalogue tools cycled from server-everything:`);
for (const n of [100, 1000]) {
  let total = 0;
  for (let i = 0; i < n; i++) total += perToolTokens[i % perToolTokens.length] ?? 0;
  console.log(
    `   ${String(n).padStart(5)} tools: full catalogue ${total} tokens, satellite ${metaTokens} tokens (${((1 - metaTokens / total) * 100).toFixed(1)}% fewer)`,
  );
}
await direct.close();

// 4. Respawn of a dormant server against a cold start alone (an in-process satellite, whose clock
// the bench moves forward to make the server idle without waiting).
const events = createRecordingEventSink();
let clockOffset = 0;
const satellite = createSatelliteApp({
  config: loadConfig(satelliteEnv, {
    LOG_LEVEL: 'silent',
    SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true',
    PROCESS_IDLE_TIMEOUT_MS: '60000',
    PROCESS_IDLE_CHECK_INTERVAL_MS: '3600000',
  }),
  now: () => Date.now() + clockOffset,
  servers: [everythingInstallation],
  events,
  logger: createLogger({ name: 'bench', level: 'silent' }),
});
await satellite.start();
const inProcess = await connect(new URL('/mcp', await satellite.app.listen({ port: 0, host: '127.0.0.1' })), 'modern');
const cold: number[] = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const c = new Client({ name: 'cold', version: '1' });
  await c.connect(new StdioClientTransport({ command: node, args: [everything, 'stdio'], stderr: 'ignore' }));
  await c.callTool({ name: 'echo', arguments: { message: 'x' } });
  cold.push(performance.now() - t);
  await c.close();
}
const respawn: number[] = [];
const respawnCall: number[] = [];
for (let i = 0; i < 5; i++) {
  const before = events.ofType('mcp.server.dormant').length;
  clockOffset += 61000;
  if (satellite.runtime.checkIdle() !== 1) throw new Error('could not make the server dormant');
  while (events.ofType('mcp.server.dormant').length < before + 1) await new Promise((r) => setTimeout(r, 5));
  const t = performance.now();
  await inProcess.callTool(satelliteGateway.toolCall(i));
  respawnCall.push(performance.now() - t);
  respawn.push(events.ofType('mcp.server.respawned').at(-1)?.respawn_duration_ms ?? Number.NaN);
}
console.log(`\n4. stdio start, median of 5:`);
console.log(`   cold start alone (spawn + handshake + first call, SDK client): ${median(cold).toFixed(0)} ms`);
console.log(`   respawn of a dormant server (respawn_duration_ms):          ${median(respawn).toFixed(0)} ms`);
console.log(`   first call to a dormant server, end to end via satellite:   ${median(respawnCall).toFixed(0)} ms`);
await inProcess.close();
await satellite.close();

console.log(`\nafter: ${load()}`);
process.exit(0);
