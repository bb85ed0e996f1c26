import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { ServerConfiguration } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { EventSink } from '../events/eventSink.ts';
import { ChildProcessTransport, type OversizedOutcome } from './childProcessTransport.ts';
import type { InstallationGeneration } from './createGenerationCache.ts';
import type { ProcessGroupWatchdog } from './createProcessGroupWatchdog.ts';
import { createStderrBatcher } from './createStderrBatcher.ts';
import { createUpstreamClient, outsideCall, type UpstreamClient, type UpstreamLimits } from './createUpstreamClient.ts';
import { isServerUnreachable } from './isServerUnreachable.ts';
import type { Failure } from './lifecycle/lifecycleState.ts';
import { formatBytes } from './messageTooLargeError.ts';
import { readProcessUsage } from './readProcessUsage.ts';
import { ConnectFailure, type UpstreamConnection, type UpstreamConnector } from './upstreamConnection.ts';

/** Per-process limits, off unless configured. Applied with `ulimit`. */
export type ResourceLimits = { memoryMb?: number; cpuSeconds?: number; maxProcesses?: number };

/** What running a stdio process needs, and nothing else. */
export type StdioConnectorSettings = {
  /** Spawn, generation probe and handshake together. */
  handshakeTimeoutMs: number;
  /** No message from the process may be longer; see ChildProcessTransport. */
  maxMessageBytes: number;
  callLimits: UpstreamLimits;
  /** Between SIGTERM and SIGKILL of the group. */
  killGraceMs: number;
  stderrIntervalMs: number;
  resourceLimits?: ResourceLimits;
};

/** One process and what is known of it. */
type Child = {
  child: ChildProcess;
  upstream: UpstreamClient;
  pid: number;
  /** Set before the satellite ends the process itself, so its exit is not a loss. */
  expected: boolean;
  ready: boolean;
  exited: Promise<void>;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** The process ended without the satellite asking it to (read once it has ended). */
  endedOnItsOwn: boolean;
  /** Why the satellite ended it to recover (a message it could not deliver). */
  killedBecause: string | undefined;
  spawnError: Error | undefined;
  lastStderr: string;
  lost: ((failure: Failure) => void) | undefined;
};

function describeExit(exit: { code: number | null; signal: NodeJS.Signals | null }): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${String(exit.code)}`;
}

function describeStderr(target: Child): string {
  const tail = target.lastStderr.trim().split('\n').slice(-3).join(' | ');
  return tail ? ` (stderr: ${tail.slice(0, 500)})` : '';
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

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/** A spawn that failed, and whether the process ended on the generation probe (before any verdict). */
class SpawnFailure extends ConnectFailure {
  readonly exitedOnProbe: boolean;
  constructor(failure: Failure, exitedOnProbe: boolean, cause: unknown) {
    super(failure, { cause });
    this.exitedOnProbe = exitedOnProbe;
  }
}

/**
 * Processes of one stdio installation: each in its own process group (signalled as one, and out of
 * reach of a Ctrl-C to the satellite), with only the environment its configuration gives plus a
 * private HOME and a PATH of system directories, stderr batched into `mcp.server.logs`, and MCP spoken
 * over stdin and stdout in the generation the server speaks.
 */
export function createStdioConnector(options: {
  config: ServerConfiguration;
  serverName: string;
  events: EventSink;
  logger: Logger;
  watchdog: ProcessGroupWatchdog;
  /** The generation verdict of this installation, kept across its processes. */
  generation: InstallationGeneration;
  settings: StdioConnectorSettings;
  cwd?: string;
}): UpstreamConnector {
  const { config, settings, watchdog, generation } = options;
  const log = options.logger.child({ installation_id: config.installation_id, server: options.serverName });
  const home = join(tmpdir(), 'orbital-satellite', config.process_id.replace(/[^A-Za-z0-9_.-]/g, '_'));
  const stderr = createStderrBatcher({
    intervalMs: settings.stderrIntervalMs,
    maxLines: 200,
    send: (lines) =>
      options.events.emit('mcp.server.logs', {
        installation_id: config.installation_id,
        team_id: config.team_id,
        server_slug: config.server_slug,
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
  const terminate = async (target: Child) => {
    target.expected = true;
    target.child.stdin?.end();
    if (!target.pid) return;
    killGroup(target.pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, settings.killGraceMs);
    });
    await Promise.race([target.exited, graceOver]);
    clearTimeout(timer);
    killGroup(target.pid, 'SIGKILL');
    await target.exited;
  };

  /** What an operator needs to fix a start that failed: the spawn error, the exit, or the silence. */
  const spawnFailureMessage = (target: Child, error: unknown): string => {
    if (target.spawnError) return `failed to start: ${target.spawnError.message}`;
    if (target.exit && !target.expected) {
      return `exited during the MCP handshake with ${describeExit(target.exit)}${describeStderr(target)}`;
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      return `did not answer the MCP handshake within ${settings.handshakeTimeoutMs} ms${describeStderr(target)}`;
    }
    if (target.expected) return 'the satellite stopped it before it was ready';
    return `handshake failed: ${(error as Error).message}${describeStderr(target)}`;
  };

  /**
   * A message longer than the limit was dropped. Matched to its request, that call has already failed
   * and the process keeps serving; unmatched, some request will never be answered, so the process is
   * ended and reported lost (restarted like a crashed one) rather than leave calls waiting.
   */
  const onOversized = (target: Child, bytes: number, outcome: OversizedOutcome) => {
    log.warn({ bytes, max: settings.maxMessageBytes, outcome }, 'stdio server sent a message above the size limit');
    if (outcome !== 'unmatched' || !target.ready || target.expected) return;
    target.killedBecause = `sent a message of ${formatBytes(bytes)}, above the limit of ${formatBytes(settings.maxMessageBytes)} (MCP_MAX_MESSAGE_BYTES), that could not be matched to a request`;
    killGroup(target.pid, 'SIGKILL');
  };

  const spawnOnce = async (signal: AbortSignal): Promise<Child> => {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const line = commandLine(config.command ?? '', config.args, settings.resourceLimits);
    // The process and its pipes belong to no call: a server request arriving on them is attributed by
    // the upstream client, never by the context of whichever call happened to start the process.
    const child = outsideCall(() =>
      spawn(line.file, line.args, {
        detached: true,
        env: { PATH: safePath(), HOME: home, ...config.env },
        cwd: options.cwd ?? process.cwd(),
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    const pid = child.pid ?? 0;
    if (pid) watchdog.register(pid);
    let markExited: () => void = () => {};
    const target: Child = {
      child,
      upstream: createUpstreamClient({ serverName: options.serverName, limits: settings.callLimits }),
      pid,
      expected: false,
      ready: false,
      exited: new Promise((resolve) => {
        markExited = resolve;
      }),
      exit: undefined,
      endedOnItsOwn: false,
      killedBecause: undefined,
      spawnError: undefined,
      lastStderr: '',
      lost: undefined,
    };
    child.stderr?.on('data', (chunk: Buffer) => {
      target.lastStderr = (target.lastStderr + chunk.toString()).slice(-2000);
      stderr.write(chunk);
    });
    const onGone = (code: number | null, exitSignal: NodeJS.Signals | null, error?: Error) => {
      if (target.exit) return;
      target.exit = { code, signal: exitSignal };
      target.endedOnItsOwn = !target.expected;
      if (pid) watchdog.unregister(pid);
      // The leader is gone; anything it left in its group goes with it.
      if (pid) killGroup(pid, 'SIGKILL');
      stderr.flush();
      markExited();
      if (target.expected || !target.ready) return;
      const message = error
        ? error.message
        : (target.killedBecause ??
          `exited with ${describeExit({ code, signal: exitSignal })}${describeStderr(target)}`);
      target.lost?.({ message, pid, exitCode: code, signal: exitSignal });
    };
    child.once('exit', (code, exitSignal) => onGone(code, exitSignal));
    child.once('error', (error) => {
      target.spawnError = error;
      if (child.exitCode === null && child.signalCode === null && !child.pid) onGone(null, null, error);
    });
    const transport = new ChildProcessTransport(child, {
      maxMessageBytes: settings.maxMessageBytes,
      onOversized: (refused, outcome) => onOversized(target, refused.bytes, outcome),
    });
    const abandon = () => void terminate(target);
    signal.addEventListener('abort', abandon, { once: true });
    const prior = generation.get();
    try {
      generation.set(await target.upstream.connect(transport, { timeoutMs: settings.handshakeTimeoutMs, prior }));
    } catch (error) {
      // A verdict the server did not accept is settled again by the next attempt.
      if (!isServerUnreachable(error) && !target.expected) generation.forget();
      if (pid && !target.exit) {
        // Exited while connecting: wait briefly for its code rather than report "connection closed".
        await Promise.race([target.exited, delay(200)]);
      }
      if (pid && !target.exit) await terminate(target);
      const exitedOnProbe = prior === undefined && target.exit !== undefined && !target.expected && !target.spawnError;
      const failure: Failure = {
        message: spawnFailureMessage(target, error),
        pid,
        exitCode: target.exit?.code ?? null,
        signal: target.exit?.signal ?? null,
      };
      throw new SpawnFailure(failure, exitedOnProbe, error);
    } finally {
      signal.removeEventListener('abort', abandon);
    }
    if (signal.aborted) {
      await terminate(target);
      throw new ConnectFailure({ message: 'the satellite is stopping', pid, exitCode: null, signal: null });
    }
    log.info(
      { pid, protocol_version: target.upstream.protocolVersion(), era: target.upstream.era() },
      'stdio server connected',
    );
    target.ready = true;
    return target;
  };

  /** A call that failed because its process went away says how it went, not just "connection closed". */
  const explainCallFailure = async (target: Child, error: unknown): Promise<unknown> => {
    if (!(error instanceof SdkError) || error.code !== SdkErrorCode.ConnectionClosed) return error;
    await Promise.race([target.exited, delay(1000)]);
    if (!target.exit || !target.endedOnItsOwn) return error;
    const how = target.killedBecause ?? `exited with ${describeExit(target.exit)}`;
    return new AppError('unavailable', `the MCP server process ${how} during the call${describeStderr(target)}`);
  };

  const connectionOf = (target: Child): UpstreamConnection => ({
    pid: target.pid,
    protocolVersion: () => target.upstream.protocolVersion(),
    listTools: (signal) => target.upstream.listTools(signal),
    watchTools: (onChange) => target.upstream.watchTools(onChange),
    async callTool(name, args, callOptions) {
      try {
        return await target.upstream.callTool(name, args, callOptions);
      } catch (error) {
        throw await explainCallFailure(target, error);
      }
    },
    checkAlive: (timeoutMs) => target.upstream.checkAlive(timeoutMs),
    // A process's pipe never refuses a message it then does not run.
    neverDelivered: () => false,
    onLost(listener) {
      target.lost = listener;
    },
    close: () => terminate(target),
    inFlight: () => target.upstream.inFlight(),
    usage: () => readProcessUsage(target.pid) ?? null,
  });

  return {
    transport: 'stdio',
    /**
     * A process, connected. A server that ends on any request before `initialize` (servers on some
     * SDKs do) dies on the generation probe: it is a 2025 server, and a second process is started
     * straight into `initialize`. Its failure, if it fails too, is the one that counts.
     */
    async open(signal) {
      try {
        return connectionOf(await spawnOnce(signal));
      } catch (error) {
        if (!(error instanceof SpawnFailure) || !error.exitedOnProbe || signal.aborted) throw error;
        log.info({ err: error }, 'stdio server exited on the generation probe; starting it again as a 2025 server');
        generation.set({ kind: 'legacy' });
        return connectionOf(await spawnOnce(signal));
      }
    },
    dispose: () => stderr.close(),
  };
}
