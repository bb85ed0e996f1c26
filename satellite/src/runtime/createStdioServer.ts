import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfiguration } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { EventSink } from '../events/eventSink.ts';
import { ChildProcessTransport } from './childProcessTransport.ts';
import type { ProcessGroupWatchdog } from './createProcessGroupWatchdog.ts';
import { createResponseStats } from './createResponseStats.ts';
import { createServerState } from './createServerState.ts';
import { createStderrBatcher } from './createStderrBatcher.ts';
import type { ManagedServer, ToolCallOptions } from './managedServer.ts';
import { readProcessUsage } from './readProcessUsage.ts';

/** Per-process limits (spec "Limits": planned, so off unless configured). Applied with `ulimit`. */
export type ResourceLimits = { memoryMb?: number; cpuSeconds?: number; maxProcesses?: number };

export type StdioServerOptions = {
  config: ServerConfiguration;
  serverName: string;
  events: EventSink;
  logger: Logger;
  watchdog: ProcessGroupWatchdog;
  onChange: () => void;
  now?: () => number;
  handshakeTimeoutMs: number;
  requestTimeoutMs: number;
  /** 0 keeps processes running however long they are idle. */
  idleTimeoutMs: number;
  /** Delay before restart attempt n is `restartBackoffMs * 2^(n-1)`. */
  restartBackoffMs: number;
  maxRestartAttempts?: number;
  /** A process that ran this long before crashing starts again with a full set of restart attempts. */
  stableAfterMs?: number;
  /** Between SIGTERM and SIGKILL of the group. */
  killGraceMs: number;
  stderrIntervalMs: number;
  resourceLimits?: ResourceLimits;
  cwd?: string;
};

type StdioState = 'idle' | 'spawning' | 'running' | 'crashed' | 'permanently_failed' | 'dormant' | 'stopped';

type Live = {
  child: ChildProcess;
  client: Client;
  pid: number;
  startedAt: number;
  /** Set before the manager stops the process itself, so its exit is not a crash. */
  expected: boolean;
  ready: boolean;
  exited: Promise<void>;
  lastStderr: string;
};

/** The directories a server may find executables in; never the satellite's own PATH. */
export function safePath(): string {
  return [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
}

/** The command line, wrapped in `ulimit` when limits are set (`exec` keeps the pid the group leader). */
export function commandLine(command: string, args: readonly string[], limits: ResourceLimits | undefined) {
  const settings: string[] = [];
  if (limits?.memoryMb) settings.push(`ulimit -v ${Math.floor(limits.memoryMb * 1024)}`);
  if (limits?.cpuSeconds) settings.push(`ulimit -t ${Math.floor(limits.cpuSeconds)}`);
  // RLIMIT_NPROC counts every process of the user, not of the group: a coarse fork-bomb stop.
  if (limits?.maxProcesses) settings.push(`ulimit -u ${Math.floor(limits.maxProcesses)}`);
  if (settings.length === 0) return { file: command, args: [...args] };
  return { file: '/bin/sh', args: ['-c', `${settings.join(' && ')} && exec "$0" "$@"`, command, ...args] };
}

/**
 * One stdio installation and its process life cycle (spec "MCP server process (satellite side)"):
 * spawning -> running; running -> crashed on an unexpected exit; crashed -> running after restart
 * attempts 1 to 3 (with backoff); crashed -> permanently failed once they are spent; running ->
 * dormant after the idle timeout with no request in flight; dormant -> running on the next call.
 * At most one process exists at any time: every caller waits on the one spawn in progress.
 */
export function createStdioServer(options: StdioServerOptions): ManagedServer & {
  checkIdle(): boolean;
  state(): StdioState;
  pid(): number | undefined;
} {
  const { config, events, logger } = options;
  const now = options.now ?? Date.now;
  const maxAttempts = options.maxRestartAttempts ?? 3;
  const state = createServerState({ config, events, onChange: options.onChange });
  const stats = createResponseStats();
  const log = logger.child({ installation_id: config.installation_id, server: options.serverName });

  let current: StdioState = 'idle';
  let live: Live | undefined;
  let spawning: Promise<Live> | undefined;
  let stopping: Promise<void> | undefined;
  let crashCount = 0;
  let restartAttempts = 0;
  let lastError = '';
  let inFlight = 0;
  let lastActivityAt = now();
  let dormantSince = 0;
  let closed = false;

  const home = join(tmpdir(), 'orbital-satellite', config.process_id.replace(/[^A-Za-z0-9_.-]/g, '_'));

  const stderr = createStderrBatcher({
    intervalMs: options.stderrIntervalMs,
    maxLines: 200,
    send: (lines) =>
      events.emit('mcp.server.logs', {
        installation_id: config.installation_id,
        team_id: config.team_id,
        server_slug: config.installation_name,
        lines,
      }),
  });

  const killGroup = (pid: number, signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };

  /** SIGTERM to the group, SIGKILL after the grace period; then the group's stragglers. */
  const terminate = async (target: Live) => {
    target.expected = true;
    target.child.stdin?.end();
    killGroup(target.pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.killGraceMs);
    });
    await Promise.race([target.exited, graceOver]);
    clearTimeout(timer);
    killGroup(target.pid, 'SIGKILL');
    await target.exited;
  };

  const spawnOnce = async (): Promise<Live> => {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const line = commandLine(config.command ?? '', config.args, options.resourceLimits);
    const child = spawn(line.file, line.args, {
      // Own process group: the whole tree is signalled as one, and Ctrl-C to the satellite is not theirs.
      detached: true,
      // Only what the configuration gives, never the satellite's secrets.
      env: { PATH: safePath(), HOME: home, ...config.env },
      cwd: options.cwd ?? process.cwd(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const pid = child.pid ?? 0;
    if (pid) options.watchdog.register(pid);
    let markExited: () => void = () => {};
    const target: Live = {
      child,
      client: new Client({ name: 'orbital-satellite', version: '0.1.0' }, { capabilities: {} }),
      pid,
      startedAt: now(),
      expected: false,
      ready: false,
      exited: new Promise((resolve) => {
        markExited = resolve;
      }),
      lastStderr: '',
    };
    child.stderr?.on('data', (chunk: Buffer) => {
      target.lastStderr = (target.lastStderr + chunk.toString()).slice(-2000);
      stderr.write(chunk);
    });
    const onGone = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      if (pid) options.watchdog.unregister(pid);
      // The leader is gone; anything it left in its group goes with it.
      if (pid) killGroup(pid, 'SIGKILL');
      stderr.flush();
      markExited();
      onExit(target, code, signal, error);
    };
    child.once('exit', (code, signal) => onGone(code, signal));
    child.once('error', (error) => {
      if (child.exitCode === null && child.signalCode === null && !child.pid) onGone(null, null, error);
    });
    target.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (live === target) await state.discover(target.client).catch((e) => log.warn({ err: e }, 'rediscovery failed'));
    });
    try {
      await target.client.connect(new ChildProcessTransport(child), { timeout: options.handshakeTimeoutMs });
    } catch (error) {
      if (pid) await terminate(target);
      throw new Error(`handshake failed: ${(error as Error).message}${describeStderr(target)}`);
    }
    target.ready = true;
    return target;
  };

  const describeStderr = (target: Live) => {
    const tail = target.lastStderr.trim().split('\n').slice(-3).join(' | ');
    return tail ? ` (stderr: ${tail.slice(0, 500)})` : '';
  };

  const onExit = (target: Live, code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
    if (target.expected || !target.ready || live !== target || closed) return;
    live = undefined;
    const uptimeMs = now() - target.startedAt;
    lastError = error
      ? error.message
      : `exited with ${signal ? `signal ${signal}` : `code ${String(code)}`}${describeStderr(target)}`;
    if (options.stableAfterMs !== undefined && uptimeMs >= options.stableAfterMs) restartAttempts = 0;
    crashCount++;
    const willRestart = restartAttempts < maxAttempts;
    events.emit('mcp.server.crashed', {
      ...state.ref,
      process_id: target.pid,
      exit_code: code,
      signal,
      uptime_seconds: uptimeMs / 1000,
      crash_count: crashCount,
      will_restart: willRestart,
    });
    log.warn({ code, signal, crashCount, willRestart }, 'stdio server crashed');
    if (!willRestart) {
      failPermanently();
      return;
    }
    current = 'crashed';
    state.setStatus('restarting', 'process', lastError);
    spawning = restartLoop(target.pid);
    spawning.catch(() => {});
  };

  const failPermanently = () => {
    current = 'permanently_failed';
    spawning = undefined;
    events.emit('mcp.server.permanently_failed', {
      ...state.ref,
      total_crashes: Math.max(1, crashCount),
      last_error: lastError.slice(0, 4000),
      failed_at: new Date().toISOString(),
    });
    state.setStatus('permanently_failed', 'process', lastError);
    log.error({ lastError }, 'stdio server permanently failed');
  };

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      setTimeout(resolve, ms).unref();
    });

  /** Restart attempts after a crash; a failed attempt counts as one more crash. */
  const restartLoop = async (oldPid: number): Promise<Live> => {
    for (;;) {
      restartAttempts++;
      const attempt = restartAttempts;
      await delay(options.restartBackoffMs * 2 ** (attempt - 1));
      if (closed) throw new AppError('unavailable', 'the satellite is shutting down');
      try {
        const next = await spawnOnce();
        if (closed) {
          await terminate(next);
          throw new AppError('unavailable', 'the satellite is shutting down');
        }
        live = next;
        current = 'running';
        spawning = undefined;
        lastActivityAt = now();
        events.emit('mcp.server.restarted', {
          ...state.ref,
          old_process_id: oldPid,
          new_process_id: next.pid,
          restart_reason: 'crash',
          attempt_number: attempt,
        });
        state.setStatus('online', 'process');
        void state.discover(next.client).catch((e) => log.warn({ err: e }, 'discovery after restart failed'));
        return next;
      } catch (error) {
        if (closed) throw error;
        recordFailedSpawn(error);
      }
    }
  };

  /**
   * A spawn or handshake that failed counts as a crash of a process that never ran: the event says so
   * (no pid, no exit code), and when no restart attempt is left the server fails permanently.
   */
  const recordFailedSpawn = (error: unknown) => {
    crashCount++;
    lastError = (error as Error).message;
    const willRestart = restartAttempts < maxAttempts;
    events.emit('mcp.server.crashed', {
      ...state.ref,
      process_id: 0,
      exit_code: null,
      signal: null,
      uptime_seconds: 0,
      crash_count: crashCount,
      will_restart: willRestart,
    });
    if (!willRestart) {
      failPermanently();
      throw unavailable();
    }
  };

  const unavailable = () =>
    new AppError('unavailable', `MCP server "${options.serverName}" has permanently failed`, {
      instructions: 'Its process crashed after every restart attempt; restart the installation once it is fixed.',
    });

  /** First start, or respawn from dormant; a failure starts the crash/restart sequence. */
  const startProcess = async (kind: 'start' | 'respawn'): Promise<Live> => {
    const began = now();
    current = 'spawning';
    if (kind === 'start') state.setStatus('connecting', 'process');
    let next: Live;
    try {
      next = await spawnOnce();
    } catch (error) {
      if (closed) throw error;
      recordFailedSpawn(error);
      current = 'crashed';
      state.setStatus('restarting', 'process', lastError);
      return restartLoop(0);
    }
    if (closed) {
      await terminate(next);
      throw new AppError('unavailable', 'the satellite is shutting down');
    }
    live = next;
    current = 'running';
    lastActivityAt = now();
    if (kind === 'start') {
      events.emit('mcp.server.started', {
        ...state.ref,
        process_id: next.pid,
        transport: 'stdio',
        tool_count: state.tools().length,
        spawn_duration_ms: now() - began,
      });
      state.setStatus('discovering_tools', 'process');
      await state.discover(next.client);
      state.setStatus('online', 'process');
    } else {
      events.emit('mcp.server.respawned', {
        ...state.ref,
        process_id: next.pid,
        dormant_duration_seconds: (began - dormantSince) / 1000,
        respawn_duration_ms: now() - began,
      });
      void state.discover(next.client).catch((e) => log.warn({ err: e }, 'discovery after respawn failed'));
    }
    return next;
  };

  /** The running process, starting or respawning it when needed; concurrent callers share one spawn. */
  const ensureRunning = async (): Promise<Live> => {
    for (;;) {
      if (closed) throw new AppError('unavailable', 'the satellite is shutting down');
      if (current === 'permanently_failed') throw unavailable();
      if (live && current === 'running') return live;
      if (stopping) {
        await stopping;
        continue;
      }
      if (!spawning) {
        const kind = current === 'dormant' ? 'respawn' : 'start';
        const promise = startProcess(kind);
        spawning = promise;
        promise.then(
          () => {
            if (spawning === promise) spawning = undefined;
          },
          () => {
            if (spawning === promise) spawning = undefined;
          },
        );
      }
      return spawning;
    }
  };

  const unavailableReason = (): string | null => {
    if (state.status() === 'online') return null;
    switch (current) {
      case 'permanently_failed':
        return `permanently failed after ${maxAttempts} restarts: ${lastError}`;
      case 'crashed':
        return `restarting (attempt ${restartAttempts} of ${maxAttempts}) after: ${lastError}`;
      case 'idle':
      case 'spawning':
        return 'starting';
      case 'stopped':
        return 'stopped';
      default:
        return lastError || `status ${state.status()}`;
    }
  };

  const server = {
    config,
    serverName: options.serverName,
    state: () => current,
    pid: () => live?.pid,
    status: state.status,
    tools: state.tools,
    async start() {
      await ensureRunning().catch((error) => {
        log.error({ err: error }, 'stdio server did not start');
      });
    },
    unavailableReason() {
      return unavailableReason();
    },
    async callTool(
      name: string,
      args: Record<string, unknown>,
      callOptions: ToolCallOptions = {},
    ): Promise<CallToolResult> {
      inFlight++;
      lastActivityAt = now();
      const began = performance.now();
      let ok = false;
      try {
        const target = await ensureRunning();
        const result = (await target.client.callTool({ name, arguments: args }, undefined, {
          timeout: options.requestTimeoutMs,
          ...(callOptions.signal ? { signal: callOptions.signal } : {}),
          ...(callOptions.onProgress ? { onprogress: callOptions.onProgress } : {}),
        })) as CallToolResult;
        ok = !result.isError;
        return result;
      } finally {
        inFlight--;
        lastActivityAt = now();
        stats.record(performance.now() - began, ok);
      }
    },
    /** Makes the process dormant when it has been idle long enough; the runtime calls this on a timer. */
    checkIdle(): boolean {
      if (options.idleTimeoutMs <= 0 || current !== 'running' || !live || inFlight > 0 || spawning || stopping) {
        return false;
      }
      const idleMs = now() - lastActivityAt;
      if (idleMs < options.idleTimeoutMs) return false;
      const target = live;
      live = undefined;
      const lastActivity = lastActivityAt;
      stopping = (async () => {
        await terminate(target);
        current = 'dormant';
        dormantSince = now();
        events.emit('mcp.server.dormant', {
          ...state.ref,
          process_id: target.pid,
          idle_duration_seconds: idleMs / 1000,
          last_activity_at: new Date(lastActivity).toISOString(),
        });
      })().finally(() => {
        stopping = undefined;
      });
      return true;
    },
    async stop() {
      closed = true;
      if (stopping) await stopping;
      await spawning?.catch(() => {});
      const target = live;
      live = undefined;
      if (target) await terminate(target);
      current = 'stopped';
      stderr.close();
    },
    snapshot() {
      const usage = live ? readProcessUsage(live.pid) : undefined;
      const health =
        current === 'running'
          ? 'healthy'
          : current === 'crashed' || current === 'permanently_failed'
            ? 'unhealthy'
            : 'unknown';
      return {
        installation_id: config.installation_id,
        server_name: options.serverName,
        server_slug: config.server_slug,
        team_id: config.team_id,
        transport: 'stdio' as const,
        status: state.status(),
        state: current,
        health: health as 'healthy' | 'unhealthy' | 'unknown',
        process_id: live?.pid ?? null,
        tool_count: state.tools().length,
        crash_count: crashCount,
        uptime_seconds: live ? (now() - live.startedAt) / 1000 : null,
        usage: usage ?? null,
        requests: stats.snapshot(),
      };
    },
  };
  return server;
}
