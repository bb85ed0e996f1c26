import type { CallToolResult } from '@modelcontextprotocol/client';
import type { InstallationStatus, McpTransport, ServerConfiguration } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import type { EventSink } from '../events/eventSink.ts';
import { assignServerNames } from './assignServerNames.ts';
import { canonicalJson } from './canonicalJson.ts';
import { createGenerationCache } from './createGenerationCache.ts';
import { createProcessGroupWatchdog } from './createProcessGroupWatchdog.ts';
import { createRemoteServer } from './createRemoteServer.ts';
import { createStdioServer, type ResourceLimits } from './createStdioServer.ts';
import type { ManagedServer, ServerSnapshot, ToolCallOptions } from './managedServer.ts';
import { serverRefOf } from './serverRefOf.ts';
import { internalNameOf, toolPathOf } from './toolPath.ts';

export type RuntimeSettings = {
  handshakeTimeoutMs: number;
  /** A call without an answer or progress for this long is cancelled (progress restarts the clock). */
  requestTimeoutMs: number;
  /** No call runs longer than this, progress or not. */
  requestMaxTotalMs: number;
  /** The longest message an upstream server may send; a longer one fails its call, never the satellite. */
  maxMessageBytes: number;
  idleTimeoutMs: number;
  /** How often idle stdio processes are looked for; 0 leaves it to explicit `checkIdle()` calls. */
  idleCheckIntervalMs: number;
  restartBackoffMs: number;
  stableAfterMs: number;
  killGraceMs: number;
  stderrIntervalMs: number;
  remoteHealthIntervalMs: number;
  reconnectBaseMs: number;
  reconnectMaxMs: number;
  resourceLimits?: ResourceLimits;
};

/** One entry of the unified tool cache: where a tool lives and how to reach it. */
export type CachedTool = {
  internal_name: string;
  tool_path: string;
  server_name: string;
  tool_name: string;
  description: string;
  input_schema: Record<string, unknown>;
  /** The tool's annotations (behaviour hints) when its server declares them. */
  annotations?: Record<string, unknown>;
  transport: McpTransport;
  installation_id: string;
  team_id: string;
  server_slug: string;
  server: ManagedServer;
};

export type ToolLookup =
  | { kind: 'found'; tool: CachedTool }
  /**
   * The path names a server that is not online: `reason` says why in words an agent and an operator
   * can act on. `tool` is absent when the server never listed its tools (it failed to start).
   */
  | { kind: 'unavailable'; server_name: string; status: InstallationStatus; reason: string; tool?: CachedTool }
  | { kind: 'ambiguous'; tool_paths: string[] }
  | { kind: 'unknown' };

/**
 * The process manager and remote handler behind the gateway: starts every configured installation,
 * keeps the unified tool cache (tool -> transport, status, schema), routes calls to the server that
 * owns the tool, and stops everything, process groups included, on shutdown.
 */
export function createServerRuntime(options: {
  servers: readonly ServerConfiguration[];
  events: EventSink;
  logger: Logger;
  settings: RuntimeSettings;
  teamScoped?: boolean;
  now?: () => number;
}) {
  const { settings, events, logger } = options;
  const watchdog = createProcessGroupWatchdog();
  const generations = createGenerationCache();
  const limits = { requestTimeoutMs: settings.requestTimeoutMs, maxTotalMs: settings.requestMaxTotalMs };
  const teamScoped = options.teamScoped ?? false;
  let dirty = true;
  const onChange = () => {
    dirty = true;
  };

  type Entry =
    | { kind: 'stdio'; server: ReturnType<typeof createStdioServer>; fingerprint: string }
    | { kind: 'remote'; server: ReturnType<typeof createRemoteServer>; fingerprint: string };

  /** The configured installations by id; `entries` holds those that run (a killed one is only configured). */
  let configured = new Map<string, ServerConfiguration>();
  let names = new Map<string, string>();
  const entries = new Map<string, Entry>();
  let servers: ManagedServer[] = [];

  /**
   * What a running server was built from: its configuration and the name its tools are listed under.
   * Settings are left out: they are read per call (request logging), so changing them restarts nothing.
   */
  const fingerprintOf = (config: ServerConfiguration, serverName: string) => {
    const { settings: _settings, ...process } = config;
    return canonicalJson({ process, serverName });
  };

  const build = (config: ServerConfiguration): Entry => {
    const serverName = names.get(config.installation_id) ?? config.installation_name;
    const fingerprint = fingerprintOf(config, serverName);
    if (config.transport === 'stdio') {
      const server = createStdioServer({
        config,
        serverName,
        events,
        logger,
        watchdog,
        onChange,
        handshakeTimeoutMs: settings.handshakeTimeoutMs,
        limits,
        maxMessageBytes: settings.maxMessageBytes,
        generation: generations.of(config.installation_id, fingerprint),
        idleTimeoutMs: settings.idleTimeoutMs,
        restartBackoffMs: settings.restartBackoffMs,
        stableAfterMs: settings.stableAfterMs,
        killGraceMs: settings.killGraceMs,
        stderrIntervalMs: settings.stderrIntervalMs,
        ...(options.now ? { now: options.now } : {}),
        ...(settings.resourceLimits ? { resourceLimits: settings.resourceLimits } : {}),
      });
      return { kind: 'stdio', server, fingerprint };
    }
    const server = createRemoteServer({
      config,
      serverName,
      events,
      logger,
      onChange,
      handshakeTimeoutMs: settings.handshakeTimeoutMs,
      limits,
      maxMessageBytes: settings.maxMessageBytes,
      generation: generations.of(config.installation_id, fingerprint),
      reconnectBaseMs: settings.reconnectBaseMs,
      reconnectMaxMs: settings.reconnectMaxMs,
    });
    return { kind: 'remote', server, fingerprint };
  };

  const refreshList = () => {
    servers = [...entries.values()].map((entry) => entry.server);
    dirty = true;
  };

  const setConfigured = (list: readonly ServerConfiguration[]) => {
    configured = new Map(list.map((config) => [config.installation_id, config]));
    generations.retain(configured.keys());
    names = assignServerNames(list, { teamScoped });
  };
  setConfigured(options.servers);
  for (const config of options.servers) entries.set(config.installation_id, build(config));
  refreshList();

  /** Stops one running server; an installation that stops being served is reported offline. */
  const stopEntry = async (installationId: string, report: boolean) => {
    const entry = entries.get(installationId);
    if (!entry) return false;
    entries.delete(installationId);
    refreshList();
    const previous = entry.server.status();
    await entry.server.stop();
    if (report && previous !== 'offline') {
      const config = entry.server.config;
      events.emit('mcp.server.status_changed', {
        ...serverRefOf(config),
        status: 'offline',
        previous_status: previous,
        status_message: 'stopped by the backend',
        reason: 'process',
        changed_at: new Date().toISOString(),
      });
    }
    return true;
  };

  const startEntry = async (config: ServerConfiguration) => {
    const entry = build(config);
    entries.set(config.installation_id, entry);
    refreshList();
    await entry.server.start();
  };

  /** Changes to the set of servers run one at a time, so a configure and a spawn never interleave. */
  let mutations: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const run = mutations.then(work, work);
    mutations = run.catch(() => {});
    return run;
  };
  let running = false;

  let byInternalName = new Map<string, CachedTool[]>();
  let online: CachedTool[] = [];
  let onlineByTeam = new Map<string, CachedTool[]>();
  const rebuild = () => {
    if (!dirty) return;
    dirty = false;
    const next = new Map<string, CachedTool[]>();
    const nextOnline: CachedTool[] = [];
    for (const server of servers) {
      const isOnline = server.status() === 'online';
      for (const tool of server.tools()) {
        const toolPath = toolPathOf(server.serverName, tool.name);
        const internal = internalNameOf(toolPath) ?? toolPath;
        const entry: CachedTool = {
          internal_name: internal,
          tool_path: toolPath,
          server_name: server.serverName,
          tool_name: tool.name,
          description: tool.description ?? '',
          input_schema: tool.inputSchema as Record<string, unknown>,
          ...(tool.annotations ? { annotations: tool.annotations as Record<string, unknown> } : {}),
          transport: server.config.transport,
          installation_id: server.config.installation_id,
          team_id: server.config.team_id,
          server_slug: server.config.server_slug,
          server,
        };
        const list = next.get(internal) ?? [];
        list.push(entry);
        next.set(internal, list);
        if (isOnline) nextOnline.push(entry);
      }
    }
    byInternalName = next;
    online = nextOnline;
    onlineByTeam = new Map();
  };

  const reasonOf = (server: ManagedServer) => server.unavailableReason() ?? `status ${server.status()}`;

  /**
   * The server a tool path names when it is not online (a server that failed to start has no tools,
   * so its paths are found by their server part), or one stopped by a kill command.
   */
  const unavailableServer = (toolPath: string, teamId: string | undefined): ToolLookup | undefined => {
    const serverName = toolPath.slice(0, toolPath.indexOf(':'));
    for (const [id, name] of names) {
      if (name !== serverName) continue;
      const config = configured.get(id);
      if (!config || (teamId !== undefined && config.team_id !== teamId)) continue;
      const server = entries.get(id)?.server;
      if (!server) {
        return { kind: 'unavailable', server_name: name, status: 'offline', reason: 'stopped by the backend' };
      }
      const status = server.status();
      if (status === 'online') return undefined;
      return { kind: 'unavailable', server_name: name, status, reason: reasonOf(server) };
    }
    return undefined;
  };

  const timers: NodeJS.Timeout[] = [];

  return {
    servers: (): readonly ManagedServer[] => servers,
    /** The configuration of an installation, whether or not its server runs now. */
    configuration: (installationId: string): ServerConfiguration | undefined => configured.get(installationId),
    configurations: (): ServerConfiguration[] => [...configured.values()],
    server: (installationId: string): ManagedServer | undefined => entries.get(installationId)?.server,
    /**
     * Tools of `online` servers only, of one team when `teamId` is given; the same array until
     * something changes.
     */
    onlineTools(teamId?: string): readonly CachedTool[] {
      rebuild();
      if (teamId === undefined) return online;
      let ofTeam = onlineByTeam.get(teamId);
      if (!ofTeam) {
        ofTeam = online.filter((tool) => tool.team_id === teamId);
        onlineByTeam.set(teamId, ofTeam);
      }
      return ofTeam;
    },
    /**
     * A tool by path, among one team's tools when `teamId` is given (other teams' do not exist then).
     * A path naming a server that is not online is `unavailable` with the server's state and last
     * error, whether or not its tools were ever listed.
     */
    lookup(toolPath: string, teamId?: string): ToolLookup {
      const internal = internalNameOf(toolPath);
      if (!internal) return { kind: 'unknown' };
      rebuild();
      const all = byInternalName.get(internal);
      const entries = teamId === undefined ? all : all?.filter((tool) => tool.team_id === teamId);
      if (!entries || entries.length === 0) return unavailableServer(toolPath, teamId) ?? { kind: 'unknown' };
      if (entries.length > 1) return { kind: 'ambiguous', tool_paths: entries.map((e) => e.tool_path) };
      const tool = entries[0] as CachedTool;
      // The internal form drops where the `:` was; a path naming another split is not this tool.
      if (tool.tool_path !== toolPath) return unavailableServer(toolPath, teamId) ?? { kind: 'unknown' };
      const status = tool.server.status();
      if (status !== 'online') {
        return { kind: 'unavailable', server_name: tool.server_name, status, reason: reasonOf(tool.server), tool };
      }
      return { kind: 'found', tool };
    },
    /**
     * `lookup`, except that a remote server found offline is asked to reconnect first: one that has just
     * come back serves the call instead of refusing it until the next reconnection attempt.
     */
    async resolve(toolPath: string, teamId?: string): Promise<ToolLookup> {
      const first = this.lookup(toolPath, teamId);
      if (first.kind !== 'unavailable' || first.status !== 'offline') return first;
      const entry = [...entries.values()].find(
        (e) =>
          e.server.serverName === first.server_name && (teamId === undefined || e.server.config.team_id === teamId),
      );
      if (entry?.kind !== 'remote') return first;
      return (await entry.server.recover()) ? this.lookup(toolPath, teamId) : first;
    },
    callTool(tool: CachedTool, args: Record<string, unknown>, options?: ToolCallOptions): Promise<CallToolResult> {
      return tool.server.callTool(tool.tool_name, args, options);
    },
    async start(): Promise<void> {
      running = true;
      await Promise.all(servers.map((server) => server.start()));
      if (settings.idleTimeoutMs > 0 && settings.idleCheckIntervalMs > 0) {
        timers.push(setInterval(() => this.checkIdle(), settings.idleCheckIntervalMs).unref());
      }
      // Remote servers may arrive later through the backend's configuration: the timer runs regardless.
      if (settings.remoteHealthIntervalMs > 0) {
        timers.push(setInterval(() => void this.checkHealth(), settings.remoteHealthIntervalMs).unref());
      }
      logger.info({ servers: servers.length }, servers.length ? 'MCP servers started' : 'no MCP servers configured');
    },
    /** Puts idle stdio processes to sleep; returns how many went dormant. */
    checkIdle(): number {
      let dormant = 0;
      for (const entry of entries.values()) if (entry.kind === 'stdio' && entry.server.checkIdle()) dormant++;
      return dormant;
    },
    async checkHealth(): Promise<void> {
      const remote = [...entries.values()].flatMap((entry) => (entry.kind === 'remote' ? [entry.server] : []));
      await Promise.all(remote.map((server) => server.checkHealth()));
    },
    /**
     * Makes the running set match `next` (the backend's configuration): starts new installations,
     * stops removed ones, restarts those whose configuration or tool-path name changed, and leaves the
     * rest alone (a running process is not touched; one stopped by a kill command stays stopped).
     */
    apply(next: readonly ServerConfiguration[]) {
      return serialized(async () => {
        const before = configured;
        const previousNames = names;
        setConfigured(next);
        const outcome = {
          started: [] as string[],
          stopped: [] as string[],
          restarted: [] as string[],
          unchanged: [] as string[],
        };
        for (const id of before.keys()) {
          if (configured.has(id)) continue;
          await stopEntry(id, false);
          outcome.stopped.push(id);
        }
        const starts: Promise<void>[] = [];
        for (const config of configured.values()) {
          const id = config.installation_id;
          const previous = before.get(id);
          const entry = entries.get(id);
          const name = names.get(id) ?? config.installation_name;
          if (!previous) {
            outcome.started.push(id);
          } else if (
            fingerprintOf(previous, previousNames.get(id) ?? previous.installation_name) ===
              fingerprintOf(config, name) &&
            (!entry || entry.fingerprint === fingerprintOf(config, name))
          ) {
            outcome.unchanged.push(id);
            continue;
          } else {
            outcome.restarted.push(id);
            await stopEntry(id, false);
          }
          starts.push(running ? startEntry(config) : Promise.resolve(void entries.set(id, build(config))));
        }
        refreshList();
        await Promise.all(starts);
        return outcome;
      });
    },
    /** Starts a configured installation that is not running; `already_running` otherwise. */
    spawn(installationId: string) {
      return serialized(async () => {
        const config = configured.get(installationId);
        if (!config) return 'not_configured' as const;
        if (entries.has(installationId)) return 'already_running' as const;
        await startEntry(config);
        return 'started' as const;
      });
    },
    /** Stops an installation's server (its configuration stays, so `spawn` can start it again). */
    kill(installationId: string) {
      return serialized(async () => {
        if (!configured.has(installationId)) return 'not_configured' as const;
        return (await stopEntry(installationId, true)) ? ('stopped' as const) : ('not_running' as const);
      });
    },
    /** A fresh process (or connection) from the current configuration. */
    restart(installationId: string) {
      return serialized(async () => {
        const config = configured.get(installationId);
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
