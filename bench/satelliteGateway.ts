/**
 * Satellite gateway benchmarks, on demand (not in tests):
 *   npx node bench/satelliteGateway.ts [calls=100000]
 * 1. execute_mcp_tool through the satellite against the same stdio server (server-everything `echo`)
 *    called directly by an SDK client, in the same run: calls/s, p50, p99 (sequential calls).
 * 2. Satellite heap and RSS after `calls` calls through one session (flat, not growing).
 * 3. tools/list tokens: the satellite's two tools against a catalogue of 100 and 1,000 tools.
 * 4. Respawn latency of a dormant stdio server against its cold start measured alone.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '@orbital/config';
import { serverConfiguration } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { createSatelliteApp } from '../satellite/src/app.ts';
import { satelliteEnv } from '../satellite/src/config.ts';
import { createRecordingEventSink } from '../satellite/src/events/createRecordingEventSink.ts';
import { metaTools } from '../satellite/src/gateway/createMetaToolServer.ts';
import { estimateToolTokens } from '../satellite/src/runtime/estimateTokens.ts';

const calls = Number(process.argv[2] ?? 100000);
const timedCalls = Math.min(calls, 5000);
const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const summarise = (label: string, durations: number[], totalMs: number) => {
  const sorted = [...durations].sort((a, b) => a - b);
  console.log(
    `${label.padEnd(28)} ${((durations.length / totalMs) * 1000).toFixed(0).padStart(6)} calls/s  p50 ${percentile(sorted, 0.5).toFixed(2)} ms  p99 ${percentile(sorted, 0.99).toFixed(2)} ms`,
  );
};

async function timed(n: number, call: (i: number) => Promise<unknown>) {
  const durations: number[] = [];
  const began = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call(i);
    durations.push(performance.now() - t);
  }
  return { durations, totalMs: performance.now() - began };
}

const events = createRecordingEventSink();
// The clock is real time plus an offset, so the bench can make the server idle without waiting.
let clockOffset = 0;
const satellite = createSatelliteApp({
  config: loadConfig(satelliteEnv, {
    LOG_LEVEL: 'silent',
    SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true',
    PROCESS_IDLE_TIMEOUT_MS: '60000',
    PROCESS_IDLE_CHECK_INTERVAL_MS: '3600000',
  }),
  now: () => Date.now() + clockOffset,
  servers: [
    serverConfiguration.parse({
      process_id: 'everything-bench-1',
      installation_id: 'inst-everything',
      installation_name: 'everything',
      team_id: 'team-bench',
      team_slug: 'bench',
      server_slug: 'everything',
      transport: 'stdio',
      command: process.execPath,
      args: [everything, 'stdio'],
    }),
  ],
  events,
  logger: createLogger({ name: 'bench', level: 'silent' }),
});
await satellite.start();
const address = await satellite.app.listen({ port: 0, host: '127.0.0.1' });

// 1. Through the satellite and directly, same server, same run.
const viaSatellite = new Client({ name: 'bench', version: '1' });
await viaSatellite.connect(new StreamableHTTPClientTransport(new URL('/mcp', address)));
const direct = new Client({ name: 'bench-direct', version: '1' });
await direct.connect(new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'] }));

const viaCall = (i: number) =>
  viaSatellite.callTool({
    name: 'execute_mcp_tool',
    arguments: { tool_path: 'everything:echo', arguments: { message: `m${i}` } },
  });
const directCall = (i: number) => direct.callTool({ name: 'echo', arguments: { message: `m${i}` } });
await timed(500, viaCall);
await timed(500, directCall);
console.log(`execute_mcp_tool, ${timedCalls} sequential calls (after 500 warm-up calls each):`);
const d = await timed(timedCalls, directCall);
summarise('direct SDK client (stdio)', d.durations, d.totalMs);
const s = await timed(timedCalls, viaCall);
summarise('through the satellite', s.durations, s.totalMs);

// 2. Memory after `calls` calls.
const memory = () => {
  globalThis.gc?.();
  const m = process.memoryUsage();
  return `heap ${(m.heapUsed / 1048576).toFixed(1)} MB, rss ${(m.rss / 1048576).toFixed(1)} MB`;
};
console.log(`\nsatellite memory (this process holds satellite and client; run with --expose-gc for exact heap):`);
console.log(`  after ${timedCalls + 500} calls: ${memory()}`);
const checkpoints = new Set([Math.floor(calls / 4), Math.floor(calls / 2), calls]);
for (let i = timedCalls + 500; i < calls; i++) {
  await viaCall(i);
  if (checkpoints.has(i + 1)) console.log(`  after ${i + 1} calls: ${memory()}`);
}

// 3. tools/list tokens.
const metaTokens = metaTools.reduce((sum, tool) => sum + estimateToolTokens(tool), 0);
const catalogue = (await direct.listTools()).tools;
const perToolTokens = catalogue.map((tool) => estimateToolTokens(tool));
console.log(`\ntools/list tokens (estimate: characters / 4), catalogue tools cycled from server-everything:`);
for (const n of [100, 1000]) {
  let total = 0;
  for (let i = 0; i < n; i++) total += perToolTokens[i % perToolTokens.length] ?? 0;
  console.log(
    `  ${String(n).padStart(5)} tools: full catalogue ${total} tokens, satellite ${metaTokens} tokens (${((1 - metaTokens / total) * 100).toFixed(1)}% fewer)`,
  );
}

// 4. Respawn of a dormant server against a cold start alone.
const cold: number[] = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const c = new Client({ name: 'cold', version: '1' });
  await c.connect(new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'] }));
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
  await waitForCount('mcp.server.dormant', before + 1);
  const t = performance.now();
  await viaCall(i);
  respawnCall.push(performance.now() - t);
  const last = events.ofType('mcp.server.respawned').at(-1);
  respawn.push(last?.respawn_duration_ms ?? Number.NaN);
}
const med = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  ).toFixed(0);
console.log(`\nstdio start, median of 5:`);
console.log(`  cold start alone (spawn + handshake + first call, SDK client): ${med(cold)} ms`);
console.log(`  respawn of a dormant server (respawn_duration_ms):          ${med(respawn)} ms`);
console.log(`  first call to a dormant server, end to end via satellite:   ${med(respawnCall)} ms`);

await viaSatellite.close();
await direct.close();
await satellite.close();
process.exit(0);

async function waitForCount(type: 'mcp.server.dormant', count: number) {
  while (events.ofType(type).length < count) await new Promise((r) => setTimeout(r, 5));
}
