import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export { freePort } from '@orbital/testing';

import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type ServerConfiguration, serverConfiguration } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import type { RuntimeSettings } from '../src/runtime/createServerRuntime.ts';

export const fixtureStdioServer = fileURLToPath(new URL('./fixtures/fixtureStdioServer.ts', import.meta.url));
export const fixtureHttpServer = fileURLToPath(new URL('./fixtures/fixtureHttpServer.ts', import.meta.url));
export const fixtureSseServer = fileURLToPath(new URL('./fixtures/fixtureSseServer.ts', import.meta.url));
/** Speaks 2026-07-28 only (SDK v2, legacy refused): stdio by default, Streamable HTTP with PORT. */
export const fixtureModernServer = fileURLToPath(new URL('./fixtures/fixtureModernServer.ts', import.meta.url));
export const everythingServer = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);
export const memoryServer = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url),
);
export const filesystemServer = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);
export const sequentialThinkingServer = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js', import.meta.url),
);

export const silentLogger = createLogger({ name: 'satellite-test', level: 'silent' });

/** Short intervals so tests never wait for real time to pass; idle is driven by a fake clock. */
export const testSettings: RuntimeSettings = {
  connection: {
    handshakeTimeoutMs: 15000,
    requestTimeoutMs: 15000,
    requestMaxTotalMs: 60000,
    maxMessageBytes: 32 * 1024 * 1024,
    // Tests that re-list drive it with a manual scheduler; the others list on connection only.
    relistIntervalMs: 0,
  },
  stdio: {
    restartBackoffMs: 5,
    stableAfterMs: 600000,
    idleTimeoutMs: 0,
    idleCheckIntervalMs: 0,
    killGraceMs: 2000,
    stderrIntervalMs: 20,
  },
  remote: { reconnectBaseMs: 20, reconnectMaxMs: 200, healthIntervalMs: 0 },
};

/** Test settings with some of each group's replaced. */
export type SettingsOverrides = { [G in keyof RuntimeSettings]?: Partial<RuntimeSettings[G]> };

export function withSettings(overrides: SettingsOverrides = {}): RuntimeSettings {
  return {
    connection: { ...testSettings.connection, ...overrides.connection },
    stdio: { ...testSettings.stdio, ...overrides.stdio },
    remote: { ...testSettings.remote, ...overrides.remote },
  };
}

/** A reference MCP server run over stdio by the satellite, as installation `name` of team alpha. */
export function referenceServer(name: string, args: string[], env: Record<string, string> = {}): ServerConfiguration {
  return serverConfiguration.parse({
    process_id: `${name}-alpha-inst-${name}`,
    installation_id: `inst-${name}`,
    installation_name: name,
    team_id: 'team-alpha',
    team_slug: 'alpha',
    server_slug: name,
    transport: 'stdio',
    command: process.execPath,
    args,
    env,
  });
}

export function stdioServer(name: string, overrides: Partial<ServerConfiguration> = {}): ServerConfiguration {
  return serverConfiguration.parse({
    process_id: `fixture-alpha-${name}`,
    installation_id: `inst-${name}`,
    installation_name: name,
    team_id: 'team-alpha',
    team_slug: 'alpha',
    server_slug: 'fixture',
    transport: 'stdio',
    command: process.execPath,
    args: [fixtureStdioServer],
    env: { FIXTURE_GIVEN: 'from-config' },
    ...overrides,
  });
}

export function httpServer(name: string, port: number, overrides: Partial<ServerConfiguration> = {}) {
  return serverConfiguration.parse({
    process_id: `fixture-http-alpha-${name}`,
    installation_id: `inst-${name}`,
    installation_name: name,
    team_id: 'team-alpha',
    team_slug: 'alpha',
    server_slug: 'fixture-http',
    transport: 'http',
    url: `http://127.0.0.1:${port}/mcp`,
    headers: { 'x-fixture-key': 'fixture' },
    ...overrides,
  });
}

/** A remote server over the older SSE transport, served by `fixtureSseServer`. */
export function sseServer(name: string, port: number, overrides: Partial<ServerConfiguration> = {}) {
  return httpServer(name, port, {
    process_id: `fixture-sse-alpha-${name}`,
    server_slug: 'fixture-sse',
    transport: 'sse',
    url: `http://127.0.0.1:${port}/sse`,
    ...overrides,
  });
}

/** Starts the HTTP fixture and resolves once it listens. */
export function startHttpFixture(port: number): Promise<ChildProcess> {
  return startFixture(fixtureHttpServer, port);
}

/** Starts the 2026-07-28-only fixture over Streamable HTTP and resolves once it listens. */
export function startModernHttpFixture(port: number): Promise<ChildProcess> {
  return startFixture(fixtureModernServer, port);
}

/** Starts the SSE fixture and resolves once it listens. */
export function startSseFixture(port: number): Promise<ChildProcess> {
  return startFixture(fixtureSseServer, port);
}

async function startFixture(script: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`fixture ${script} exited with ${code}`)));
  });
  return child;
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Waits for a condition the system reaches on its own (a process gone); fails after `timeoutMs`.
 * `refresh` runs before each check, for conditions read from a server.
 */
export async function waitUntil(
  condition: () => boolean,
  timeoutMs = 10000,
  what = 'condition',
  refresh?: () => Promise<void>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await refresh?.();
    if (condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Live (not zombie) processes whose /proc stat fields after the name pass `matches`: `fields[0]` is
 * the state, `fields[1]` the parent's pid, `fields[2]` the process group.
 */
export function liveProcessesWhere(matches: (fields: string[]) => boolean): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z' && matches(fields)) found.push(Number(entry));
    } catch {
      // gone between readdir and read
    }
  }
  return found;
}

/** Live processes of a process group. */
export const groupMembers = (pgid: number): number[] => liveProcessesWhere((fields) => Number(fields[2]) === pgid);

/** Live children of a process (the stdio servers a satellite spawned). */
export const childrenOf = (pid: number): number[] => liveProcessesWhere((fields) => Number(fields[1]) === pid);

export function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export function textOf(result: object): string {
  const first = ((result as { content?: unknown }).content as { type: string; text?: string }[] | undefined)?.[0];
  return first?.text ?? '';
}

/** An MCP client called `name`, connected over Streamable HTTP to the satellite's `/mcp` at `url`. */
export async function connectClient(url: URL, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}
