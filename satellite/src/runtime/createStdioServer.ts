import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type CallToolResult, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { ServerConfiguration } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { EventSink } from '../events/eventSink.ts';
import { ChildProcessTransport, type OversizedOutcome } from './childProcessTransport.ts';
import type { InstallationGeneration } from './createGenerationCache.ts';
import type { ProcessGroupWatchdog } from './createProcessGroupWatchdog.ts';
import { createResponseStats } from './createResponseStats.ts';
import { createServerState } from './createServerState.ts';
import { createStderrBatcher } from './createStderrBatcher.ts';
import { createUpstreamClient, outsideCall, type UpstreamClient, type UpstreamLimits } from './createUpstreamClient.ts';
import { isServerUnreachable } from './isServerUnreachable.ts';
import type { ManagedServer, ToolCallOptions } from './managedServer.ts';
import { formatBytes } from './messageTooLargeError.ts';
import { readProcessUsage } from './readProcessUsage.ts';

/** Per-process limits, off unless configured. Applied with `ulimit`. */
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
  limits: UpstreamLimits;
  /** No message from the process may be longer; see ChildProcessTransport. */
  maxMessageBytes: number;
  /** The generation verdict of this installation, kept across its processes. */
  generation: InstallationGeneration;
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
  upstream: UpstreamClient;
  pid: number;
  startedAt: number;
  /** Set before the manager stops the process itself, so its exit is not a crash. */
  expected: boolean;
  ready: boolean;
  exited: Promise<void>;
  /** How the process ended, once it has. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Why the manager ended it, when it did so to recover (a message it could not deliver). */
  killedBecause: string | undefined;
  spawnError: Error | undefined;
  lastStderr: string;
};

/** A spawn or handshake that failed, with what is known of the process that tried. */
class SpawnFailure extends Error {
  readonly pid: number;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The process ended while being probed for its generation, before any verdict existed. */
  readonly exitedOnProbe: boolean;
  constructor(message: string, target: { pid: number; exit: Live['exit'] }, exitedOnProbe: boolean) {
    super(message);
    this.pid = target.pid;
    this.exitCode = target.exit?.code ?? null;
    this.signal = target.exit?.signal ?? null;
    this.exitedOnProbe = exitedOnProbe;
  }
}

function describeExit(exit: { code: number | null; signal: NodeJS.Signals | null }): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${String(exit.code)}`;
}

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
 * One stdio installation and its process life cycle:
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
        server_slug: config.server_slug,
        lines,
      }),
  });

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      setTimeout(resolve, ms).unref();
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
    // The process and its pipes belong to no call: a server request arriving on them is attributed by
    // the upstream client, never by the context of whichever call happened to start the process.
    const child = outsideCall(() =>
      spawn(line.file, line.args, {
        // Own process group: the whole tree is signalled as one, and Ctrl-C to the satellite is not theirs.
        detached: true,
        // Only what the configuration gives, never the satellite's secrets.
        env: { PATH: safePath(), HOME: home, ...config.env },
        cwd: options.cwd ?? process.cwd(),
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    const pid = child.pid ?? 0;
    if (pid) options.watchdog.register(pid);
    let markExited: () => void = () => {};
    const target: Live = {
      child,
      upstream: createUpstreamClient({ serverName: options.serverName, limits: options.limits }),
      pid,
      startedAt: now(),
      expected: false,
      ready: false,
      exited: new Promise((resolve) => {
        markExited = resolve;
      }),
      exit: undefined,
      killedBecause: undefined,
      spawnError: undefined,
      lastStderr: '',
    };
    child.stderr?.on('data', (chunk: Buffer) => {
      target.lastStderr = (target.lastStderr + chunk.toString()).slice(-2000);
      stderr.write(chunk);
    });
    const onGone = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      if (target.exit) return;
      target.exit = { code, signal };
      if (pid) options.watchdog.unregister(pid);
      // The leader is gone; anything it left in its group goes with it.
      if (pid) killGroup(pid, 'SIGKILL');
      stderr.flush();
      markExited();
      onExit(target, code, signal, error);
    };
    child.once('exit', (code, signal) => onGone(code, signal));
    child.once('error', (error) => {
      target.spawnError = error;
      if (child.exitCode === null && child.signalCode === null && !child.pid) onGone(null, null, error);
    });
    const transport = new ChildProcessTransport(child, {
      maxMessageBytes: options.maxMessageBytes,
      onOversized: (refused, outcome) => onOversized(target, refused.bytes, outcome),
    });
    const prior = options.generation.get();
    try {
      const verdict = await target.upstream.connect(transport, { timeoutMs: options.handshakeTimeoutMs, prior });
      options.generation.set(verdict);
    } catch (error) {
      // A verdict the server did not accept is settled again by the next attempt.
      if (!isServerUnreachable(error)) options.generation.forget();
      if (pid && !target.exit) {
        // Exited while connecting: wait briefly for its code rather than report "connection closed".
        await Promise.race([target.exited, delay(200)]);
      }
      if (pid && !target.exit) await terminate(target);
      const exitedOnProbe = prior === undefined && target.exit !== undefined && !target.expected && !target.spawnError;
      throw new SpawnFailure(spawnFailureMessage(target, error), target, exitedOnProbe);
    }
    log.info(
      { pid, protocol_version: target.upstream.protocolVersion(), era: target.upstream.era() },
      'stdio server connected',
    );
    target.ready = true;
    return target;
  };

  /**
   * A process, connected. A server that ends on any request before `initialize` (servers on some SDKs
   * do) dies on the generation probe: it is a 2025 server, and a second process is started straight
   * into `initialize`. Its failure, if it fails too, is the one that counts.
   */
  const spawnConnected = async (): Promise<Live> => {
    try {
      return await spawnOnce();
    } catch (error) {
      if (!(error instanceof SpawnFailure) || !error.exitedOnProbe || closed) throw error;
      log.info({ err: error }, 'stdio server exited on the generation probe; starting it again as a 2025 server');
      options.generation.set({ kind: 'legacy' });
      return spawnOnce();
    }
  };

  /** What an operator needs to fix a start that failed: the spawn error, the exit, or the silence. */
  const spawnFailureMessage = (target: Live, error: unknown): string => {
    if (target.spawnError) return `failed to start: ${target.spawnError.message}`;
    if (target.exit && !target.expected) {
      return `exited during the MCP handshake with ${describeExit(target.exit)}${describeStderr(target)}`;
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      return `did not answer the MCP handshake within ${options.handshakeTimeoutMs} ms${describeStderr(target)}`;
    }
    return `handshake failed: ${(error as Error).message}${describeStderr(target)}`;
  };

  /**
   * A message longer than the limit was dropped. Matched to its request, that call has already failed
   * and the process keeps serving (so it does after an oversized message of its own); unmatched, some
   * request will never be answered, so the process is restarted (as after a crash) rather than leave
   * calls waiting for their timeout.
   */
  const onOversized = (target: Live, bytes: number, outcome: OversizedOutcome) => {
    log.warn({ bytes, max: options.maxMessageBytes, outcome }, 'stdio server sent a message above the size limit');
    if (outcome !== 'unmatched' || live !== target) return;
    target.killedBecause = `sent a message of ${formatBytes(bytes)}, above the limit of ${formatBytes(options.maxMessageBytes)} (MCP_MAX_MESSAGE_BYTES), that could not be matched to a request`;
    killGroup(target.pid, 'SIGKILL');
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
      : (target.killedBecause ?? `exited with ${describeExit({ code, signal })}${describeStderr(target)}`);
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
    log.warn({ code, signal, crash_count: crashCount, will_restart: willRestart }, 'stdio server crashed');
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
    log.error({ last_error: lastError }, 'stdio server permanently failed');
  };

  /** Restart attempts after a crash; a failed attempt counts as one more crash. */
  const restartLoop = async (oldPid: number): Promise<Live> => {
    for (;;) {
      restartAttempts++;
      const attempt = restartAttempts;
      await delay(options.restartBackoffMs * 2 ** (attempt - 1));
      if (closed) throw new AppError('unavailable', 'the satellite is shutting down');
      try {
        const next = await spawnConnected();
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
        void discoverTools(next).catch((e) => log.warn({ err: e }, 'discovery after restart failed'));
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
    const failure = error instanceof SpawnFailure ? error : undefined;
    const willRestart = restartAttempts < maxAttempts;
    events.emit('mcp.server.crashed', {
      ...state.ref,
      process_id: failure?.pid ?? 0,
      exit_code: failure?.exitCode ?? null,
      signal: failure?.signal ?? null,
      uptime_seconds: 0,
      crash_count: crashCount,
      will_restart: willRestart,
    });
    log.warn({ err: error, crash_count: crashCount, will_restart: willRestart }, 'stdio server failed to start');
    if (!willRestart) {
      failPermanently();
      throw unavailable();
    }
  };

  const unavailable = () =>
    new AppError(
      'unavailable',
      `MCP server "${options.serverName}" permanently failed after ${maxAttempts} restarts: ${lastError}`,
      { instructions: 'Its process crashed after every restart attempt; restart the installation once it is fixed.' },
    );

  /** Lists the tools of a running process and keeps watching for changes it announces. */
  const discoverTools = async (target: Live) => {
    await state.discover(() => target.upstream.listTools());
    await target.upstream
      .watchTools(() => {
        if (live === target) {
          void state
            .discover(() => target.upstream.listTools())
            .catch((e) => log.warn({ err: e }, 'rediscovery failed'));
        }
      })
      .catch((e) => log.warn({ err: e }, 'could not watch the tool list'));
  };

  /** First start, or respawn from dormant; a failure starts the crash/restart sequence. */
  const startProcess = async (kind: 'start' | 'respawn'): Promise<Live> => {
    const began = now();
    current = 'spawning';
    if (kind === 'start') state.setStatus('connecting', 'process');
    let next: Live;
    try {
      next = await spawnConnected();
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
      await discoverTools(next);
      state.setStatus('online', 'process');
    } else {
      events.emit('mcp.server.respawned', {
        ...state.ref,
        process_id: next.pid,
        dormant_duration_seconds: (began - dormantSince) / 1000,
        respawn_duration_ms: now() - began,
      });
      void discoverTools(next).catch((e) => log.warn({ err: e }, 'discovery after respawn failed'));
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

  /** A call that failed because its process went away says how it went, not just "connection closed". */
  const explainCallFailure = async (target: Live, error: unknown): Promise<unknown> => {
    if (!(error instanceof SdkError) || error.code !== SdkErrorCode.ConnectionClosed) return error;
    await Promise.race([target.exited, delay(1000)]);
    if (!target.exit || target.expected) return error;
    const how = target.killedBecause ?? `exited with ${describeExit(target.exit)}`;
    return new AppError('unavailable', `the MCP server process ${how} during the call${describeStderr(target)}`);
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
        let result: CallToolResult;
        try {
          result = await target.upstream.callTool(name, args, callOptions);
        } catch (error) {
          throw await explainCallFailure(target, error);
        }
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
        protocol_version: live?.upstream.protocolVersion() ?? null,
        status_reason: unavailableReason(),
      };
    },
  };
  return server;
}
