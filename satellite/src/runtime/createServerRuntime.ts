import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ServerConfiguration } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { Scheduler } from '../backend/scheduler.ts';
import type { EventSink } from '../events/eventSink.ts';
import { canonicalJson } from './canonicalJson.ts';
import { createGenerationCache } from './createGenerationCache.ts';
import { createProcessGroupWatchdog } from './createProcessGroupWatchdog.ts';
import { createRemoteConnector } from './createRemoteConnector.ts';
import { createServerSupervisor } from './createServerSupervisor.ts';
import { createStdioConnector, type ResourceLimits } from './createStdioConnector.ts';
import { type CachedTool, createToolCatalogue, type ToolLookup } from './createToolCatalogue.ts';
import type { LifecyclePolicy } from './lifecycle/lifecycleState.ts';
import type { ManagedServer, ServerSnapshot, ToolCallOptions } from './managedServer.ts';
import { serverRefOf } from './serverRefOf.ts';
import type { UpstreamTokens } from './upstreamTokens.ts';

export type { CachedTool, ToolLookup } from './createToolCatalogue.ts';

/** The runtime's settings, grouped by the part that uses them; each part is handed its group only. */
export type RuntimeSettings = {
  /** Every upstream connection, stdio or remote. */
  connection: {
    /** Connecting: spawn or connect, generation probe and handshake together. */
    handshakeTimeoutMs: number;
    /** A call without an answer or progress for this long is cancelled (progress restarts the clock). */
    requestTimeoutMs: number;
    /** No call runs longer than this, progress or not. */
    requestMaxTotalMs: number;
    /** The longest message an upstream server may send; a longer one fails its call, never the satellite. */
    maxMessageBytes: number;
    /**
     * The mean wait between unasked re-lists of a connected server's tools (jittered per server), so a
     * tool changed without a list-changed notification is held back like one announced; 0 never.
     * A re-list gets `handshakeTimeoutMs` to answer.
     */
    relistIntervalMs: number;
  };
  stdio: {
    /** Restart attempt n waits `restartBackoffMs * 2^(n-1)`; 3 attempts. */
    restartBackoffMs: number;
    /** A process that ran this long before it ended gets its 3 restart attempts back. */
    stableAfterMs: number;
    /** 0 keeps processes running however long they are idle. */
    idleTimeoutMs: number;
    /** How often idle processes are looked for; 0 leaves it to explicit `checkIdle()` calls. */
    idleCheckIntervalMs: number;
    killGraceMs: number;
    stderrIntervalMs: number;
    resourceLimits?: ResourceLimits;
  };
  remote: {
    /** First reconnection delay; doubles per failed attempt up to `reconnectMaxMs`. */
    reconnectBaseMs: number;
    reconnectMaxMs: number;
    /** How often a connected server's liveness is checked; 0 never. */
    healthIntervalMs: number;
  };
};

/** The restarts after which a stdio server fails for good. */
const stdioMaxRestarts = 3;

/**
 * The servers behind the gateway: one supervisor per running installation (its lifecycle, over a stdio
 * or remote connector), the tool catalogue they list their tools into, and the configured set, changed
 * as a difference when the backend's configuration changes. Stops everything, process groups included,
 * on shutdown.
 */
export function createServerRuntime(options: {
  servers: readonly ServerConfiguration[];
  events: EventSink;
  logger: Logger;
  settings: RuntimeSettings;
  teamScoped?: boolean;
  /** Access tokens for remote servers behind OAuth, from the backend link. */
  upstreamTokens?: UpstreamTokens;
  now?: () => number;
  /** The clock of the re-list schedules (a manual one in tests). */
  scheduler?: Scheduler;
}) {
  const { settings, events, logger } = options;
  const watchdog = createProcessGroupWatchdog();
  const generations = createGenerationCache();
  const callLimits = {
    requestTimeoutMs: settings.connection.requestTimeoutMs,
    maxTotalMs: settings.connection.requestMaxTotalMs,
  };
  const stdioPolicy: LifecyclePolicy = {
    kind: 'process',
    maxRestarts: stdioMaxRestarts,
    backoffBaseMs: settings.stdio.restartBackoffMs,
    backoffMaxMs: Number.POSITIVE_INFINITY,
    stableAfterMs: settings.stdio.stableAfterMs,
    idleTimeoutMs: settings.stdio.idleTimeoutMs,
    callDuringBackoff: 'wait',
  };
  const remotePolicy: LifecyclePolicy = {
    kind: 'connection',
    maxRestarts: Number.POSITIVE_INFINITY,
    backoffBaseMs: settings.remote.reconnectBaseMs,
    backoffMaxMs: settings.remote.reconnectMaxMs,
    stableAfterMs: 0,
    idleTimeoutMs: 0,
    callDuringBackoff: 'try_now',
  };

  type Entry = { server: ReturnType<typeof createServerSupervisor>; fingerprint: string };
  /** The installations whose servers run (a killed one is only configured). */
  const entries = new Map<string, Entry>();
  let servers: ManagedServer[] = [];
  const catalogue = createToolCatalogue({
    events,
    teamScoped: options.teamScoped ?? false,
    standing: (installationId) => {
      const server = entries.get(installationId)?.server;
      return server ? { status: server.status(), reason: server.unavailableReason() } : undefined;
    },
  });

  /**
   * What a running server was built from: its configuration and the name its tools are listed under.
   * Settings, the tool policy and the pinned definitions are left out: they are read per call (request logging) and per
   * listing or lookup (which tools are on), so changing them restarts nothing.
   */
  const fingerprintOf = (config: ServerConfiguration, serverName: string) => {
    const { settings: _settings, tool_policy: _toolPolicy, tool_pins: _toolPins, ...process } = config;
    return canonicalJson({ process, serverName });
  };

  const build = (config: ServerConfiguration): Entry => {
    const serverName = catalogue.nameOf(config);
    const fingerprint = fingerprintOf(config, serverName);
    const generation = generations.of(config.installation_id, fingerprint);
    const connector =
      config.transport === 'stdio'
        ? createStdioConnector({
            config,
            serverName,
            events,
            logger,
            watchdog,
            generation,
            settings: {
              handshakeTimeoutMs: settings.connection.handshakeTimeoutMs,
              maxMessageBytes: settings.connection.maxMessageBytes,
              callLimits,
              killGraceMs: settings.stdio.killGraceMs,
              stderrIntervalMs: settings.stdio.stderrIntervalMs,
              ...(settings.stdio.resourceLimits ? { resourceLimits: settings.stdio.resourceLimits } : {}),
            },
          })
        : createRemoteConnector({
            config,
            serverName,
            logger,
            generation,
            settings: {
              handshakeTimeoutMs: settings.connection.handshakeTimeoutMs,
              maxMessageBytes: settings.connection.maxMessageBytes,
              callLimits,
            },
            ...(options.upstreamTokens ? { tokens: options.upstreamTokens } : {}),
          });
    const server = createServerSupervisor({
      config,
      serverName,
      connector,
      policy: config.transport === 'stdio' ? stdioPolicy : remotePolicy,
      tools: catalogue.open(config, serverName),
      events,
      logger,
      onChange: catalogue.changed,
      relist: { intervalMs: settings.connection.relistIntervalMs, timeoutMs: settings.connection.handshakeTimeoutMs },
      ...(options.now ? { now: options.now } : {}),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    });
    return { server, fingerprint };
  };

  const refreshList = () => {
    servers = [...entries.values()].map((entry) => entry.server);
    catalogue.changed();
  };

  const setConfigured = (list: readonly ServerConfiguration[]) => {
    catalogue.configure(list);
    generations.retain(list.map((config) => config.installation_id));
  };
  setConfigured(options.servers);
  for (const config of options.servers) entries.set(config.installation_id, build(config));
  refreshList();

  /** Stops one running server; an installation that stops being served is reported offline. */
  const stopEntry = async (installationId: string, report: boolean) => {
    const entry = entries.get(installationId);
    if (!entry) return false;
    entries.delete(installationId);
    catalogue.close(installationId);
    refreshList();
    const previous = entry.server.status();
    await entry.server.stop();
    if (report && previous !== 'offline') {
      events.emit('mcp.server.status_changed', {
        ...serverRefOf(entry.server.config),
        status: 'offline',
        previous_status: previous,
        status_message: 'stopped by the backend',
        reason: 'process',
        changed_at: new Date().toISOString(),
      });
    }
    return true;
  };

  const startEntry = (config: ServerConfiguration): Promise<void> => {
    const entry = build(config);
    entries.set(config.installation_id, entry);
    refreshList();
    return entry.server.start();
  };

  /** Changes to the set of servers run one at a time, so a configure and a spawn never interleave. */
  let mutations: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const run = mutations.then(work, work);
    mutations = run.catch(() => {});
    return run;
  };
  let running = false;
  const timers: NodeJS.Timeout[] = [];

  return {
    servers: (): readonly ManagedServer[] => servers,
    /** The configuration of an installation, whether or not its server runs now. */
    configuration: catalogue.configuration,
    configurations: catalogue.configurations,
    server: (installationId: string): ManagedServer | undefined => entries.get(installationId)?.server,
    /** Tools of `online` servers only, of one team when `teamId` is given; the same array until something changes. */
    onlineTools: catalogue.onlineTools,
    /** A tool by path (see the catalogue): found, unavailable with why, ambiguous or unknown. */
    lookup: catalogue.lookup,
    /** The configured servers (of one team when given) that are not online, and why. */
    unavailable: catalogue.unavailable,
    /**
     * `lookup`, except that a remote server found offline is asked to reconnect first: one that has just
     * come back serves the call instead of refusing it until the next reconnection attempt.
     */
    async resolve(toolPath: string, teamId?: string): Promise<ToolLookup> {
      const first = catalogue.lookup(toolPath, teamId);
      if (first.kind !== 'unavailable' || first.status !== 'offline') return first;
      const entry = [...entries.values()].find(
        (e) =>
          e.server.serverName === first.server_name && (teamId === undefined || e.server.config.team_id === teamId),
      );
      if (!entry || entry.server.config.transport === 'stdio') return first;
      return (await entry.server.recover()) ? catalogue.lookup(toolPath, teamId) : first;
    },
    callTool(tool: CachedTool, args: Record<string, unknown>, options?: ToolCallOptions): Promise<CallToolResult> {
      const server = entries.get(tool.installation_id)?.server;
      if (!server) return Promise.reject(new AppError('unavailable', `MCP server "${tool.server_name}" was stopped`));
      return server.callTool(tool.tool_name, args, options);
    },
    /**
     * Starts every configured server in the background, and the idle and health timers. The promise
     * settles once every server's first attempt has (online or failed); nothing needs to wait for it,
     * and one slow server delays no other.
     */
    start(): Promise<void> {
      running = true;
      if (settings.stdio.idleTimeoutMs > 0 && settings.stdio.idleCheckIntervalMs > 0) {
        timers.push(setInterval(() => this.checkIdle(), settings.stdio.idleCheckIntervalMs).unref());
      }
      // Remote servers may arrive later through the backend's configuration: the timer runs regardless.
      if (settings.remote.healthIntervalMs > 0) {
        timers.push(setInterval(() => void this.checkHealth(), settings.remote.healthIntervalMs).unref());
      }
      logger.info({ servers: servers.length }, servers.length ? 'starting MCP servers' : 'no MCP servers configured');
      return Promise.all(servers.map((server) => server.start())).then(() => {});
    },
    /** Puts idle stdio processes to sleep; returns how many went dormant. */
    checkIdle(): number {
      let dormant = 0;
      for (const server of servers) if (server.checkIdle()) dormant++;
      return dormant;
    },
    /** Checks the connection of every remote server; one that does not answer is lost and reconnected. */
    async checkHealth(): Promise<void> {
      const remote = servers.filter((server) => server.config.transport !== 'stdio');
      await Promise.all(remote.map((server) => server.checkHealth(settings.connection.handshakeTimeoutMs)));
    },
    /**
     * Makes the running set match `next` (the backend's configuration): starts new installations,
     * stops removed ones, restarts those whose configuration or tool-path name changed, and leaves the
     * rest alone (a running process is not touched; one stopped by a kill command stays stopped).
     * Resolves once the stops are done and the starts under way: a server slow to start holds up
     * neither the configuration sync nor the commands behind it.
     */
    apply(next: readonly ServerConfiguration[]) {
      return serialized(async () => {
        const before = new Map(catalogue.configurations().map((config) => [config.installation_id, config]));
        const previousNames = new Map(
          [...before.values()].map((config) => [config.installation_id, catalogue.nameOf(config)]),
        );
        setConfigured(next);
        const outcome = {
          started: [] as string[],
          stopped: [] as string[],
          restarted: [] as string[],
          unchanged: [] as string[],
        };
        for (const id of before.keys()) {
          if (catalogue.configuration(id)) continue;
          await stopEntry(id, false);
          outcome.stopped.push(id);
        }
        for (const config of catalogue.configurations()) {
          const id = config.installation_id;
          const previous = before.get(id);
          const entry = entries.get(id);
          const fingerprint = fingerprintOf(config, catalogue.nameOf(config));
          if (!previous) {
            outcome.started.push(id);
          } else if (
            fingerprintOf(previous, previousNames.get(id) ?? previous.installation_name) === fingerprint &&
            (!entry || entry.fingerprint === fingerprint)
          ) {
            outcome.unchanged.push(id);
            continue;
          } else {
            outcome.restarted.push(id);
            await stopEntry(id, false);
          }
          if (running) void startEntry(config);
          else entries.set(id, build(config));
        }
        refreshList();
        return outcome;
      });
    },
    /**
     * Starts a configured installation that is not running (`already_running` otherwise), and waits
     * for its first attempt, so the command's result carries the status it led to.
     */
    spawn(installationId: string) {
      return serialized(async () => {
        const config = catalogue.configuration(installationId);
        if (!config) return 'not_configured' as const;
        const entry = entries.get(installationId);
        if (entry) {
          // Perhaps started a moment ago by the configuration this command fetched: its first attempt counts.
          await entry.server.start();
          return 'already_running' as const;
        }
        await startEntry(config);
        return 'started' as const;
      });
    },
    /** Stops an installation's server (its configuration stays, so `spawn` can start it again). */
    kill(installationId: string) {
      return serialized(async () => {
        if (!catalogue.configuration(installationId)) return 'not_configured' as const;
        return (await stopEntry(installationId, true)) ? ('stopped' as const) : ('not_running' as const);
      });
    },
    /** A fresh process (or connection) from the current configuration. */
    restart(installationId: string) {
      return serialized(async () => {
        const config = catalogue.configuration(installationId);
        if (!config) return 'not_configured' as const;
        await stopEntry(installationId, false);
        // An operator's restart also settles the server's generation again.
        generations.forget(installationId);
        await startEntry(config);
        return 'restarted' as const;
      });
    },
    snapshot(): ServerSnapshot[] {
      return servers.map((server) => server.snapshot());
    },
    async stop(): Promise<void> {
      running = false;
      for (const timer of timers) clearInterval(timer);
      await mutations;
      await Promise.all(servers.map((server) => server.stop()));
      watchdog.close();
    },
  };
}

export type ServerRuntime = ReturnType<typeof createServerRuntime>;
