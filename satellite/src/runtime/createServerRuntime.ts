import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { InstallationStatus, McpTransport, ServerConfiguration } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import type { EventSink } from '../events/eventSink.ts';
import { assignServerNames } from './assignServerNames.ts';
import { createProcessGroupWatchdog } from './createProcessGroupWatchdog.ts';
import { createRemoteServer } from './createRemoteServer.ts';
import { createStdioServer, type ResourceLimits } from './createStdioServer.ts';
import type { ManagedServer, ServerSnapshot } from './managedServer.ts';
import { internalNameOf, toolPathOf } from './toolPath.ts';

export type RuntimeSettings = {
  handshakeTimeoutMs: number;
  requestTimeoutMs: number;
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
  transport: McpTransport;
  installation_id: string;
  team_id: string;
  server_slug: string;
  server: ManagedServer;
};

export type ToolLookup =
  | { kind: 'found'; tool: CachedTool }
  | { kind: 'unavailable'; tool: CachedTool; status: InstallationStatus }
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
  const names = assignServerNames(options.servers, { teamScoped: options.teamScoped ?? false });
  let dirty = true;
  const onChange = () => {
    dirty = true;
  };

  const stdio: ReturnType<typeof createStdioServer>[] = [];
  const remote: ReturnType<typeof createRemoteServer>[] = [];
  const servers: ManagedServer[] = options.servers.map((config) => {
    const serverName = names.get(config.installation_id) ?? config.installation_name;
    if (config.transport === 'stdio') {
      const server = createStdioServer({
        config,
        serverName,
        events,
        logger,
        watchdog,
        onChange,
        handshakeTimeoutMs: settings.handshakeTimeoutMs,
        requestTimeoutMs: settings.requestTimeoutMs,
        idleTimeoutMs: settings.idleTimeoutMs,
        restartBackoffMs: settings.restartBackoffMs,
        stableAfterMs: settings.stableAfterMs,
        killGraceMs: settings.killGraceMs,
        stderrIntervalMs: settings.stderrIntervalMs,
        ...(options.now ? { now: options.now } : {}),
        ...(settings.resourceLimits ? { resourceLimits: settings.resourceLimits } : {}),
      });
      stdio.push(server);
      return server;
    }
    const server = createRemoteServer({
      config,
      serverName,
      events,
      logger,
      onChange,
      handshakeTimeoutMs: settings.handshakeTimeoutMs,
      requestTimeoutMs: settings.requestTimeoutMs,
      reconnectBaseMs: settings.reconnectBaseMs,
      reconnectMaxMs: settings.reconnectMaxMs,
    });
    remote.push(server);
    return server;
  });

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

  const timers: NodeJS.Timeout[] = [];

  return {
    servers: (): readonly ManagedServer[] => servers,
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
    /** A tool by path, among one team's tools when `teamId` is given (other teams' do not exist then). */
    lookup(toolPath: string, teamId?: string): ToolLookup {
      const internal = internalNameOf(toolPath);
      if (!internal) return { kind: 'unknown' };
      rebuild();
      const all = byInternalName.get(internal);
      const entries = teamId === undefined ? all : all?.filter((tool) => tool.team_id === teamId);
      if (!entries || entries.length === 0) return { kind: 'unknown' };
      if (entries.length > 1) return { kind: 'ambiguous', tool_paths: entries.map((e) => e.tool_path) };
      const tool = entries[0] as CachedTool;
      // The internal form drops where the `:` was; a path naming another split is not this tool.
      if (tool.tool_path !== toolPath) return { kind: 'unknown' };
      const status = tool.server.status();
      if (status !== 'online') return { kind: 'unavailable', tool, status };
      return { kind: 'found', tool };
    },
    callTool(tool: CachedTool, args: Record<string, unknown>): Promise<CallToolResult> {
      return tool.server.callTool(tool.tool_name, args);
    },
    async start(): Promise<void> {
      await Promise.all(servers.map((server) => server.start()));
      if (settings.idleTimeoutMs > 0 && settings.idleCheckIntervalMs > 0) {
        timers.push(setInterval(() => this.checkIdle(), settings.idleCheckIntervalMs).unref());
      }
      if (remote.length > 0 && settings.remoteHealthIntervalMs > 0) {
        timers.push(setInterval(() => void this.checkHealth(), settings.remoteHealthIntervalMs).unref());
      }
      logger.info({ servers: servers.length }, servers.length ? 'MCP servers started' : 'no MCP servers configured');
    },
    /** Puts idle stdio processes to sleep; returns how many went dormant. */
    checkIdle(): number {
      return stdio.filter((server) => server.checkIdle()).length;
    },
    async checkHealth(): Promise<void> {
      await Promise.all(remote.map((server) => server.checkHealth()));
    },
    snapshot(): ServerSnapshot[] {
      return servers.map((server) => server.snapshot());
    },
    async stop(): Promise<void> {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(servers.map((server) => server.stop()));
      watchdog.close();
    },
  };
}

export type ServerRuntime = ReturnType<typeof createServerRuntime>;
