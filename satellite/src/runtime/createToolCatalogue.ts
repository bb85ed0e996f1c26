import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import {
  type InstallationStatus,
  type McpTransport,
  type ServerConfiguration,
  toolDefinitionOf,
} from '@orbital/contracts';
import type { EventSink } from '../events/eventSink.ts';
import { assignServerNames } from './assignServerNames.ts';
import { canonicalJson } from './canonicalJson.ts';
import { estimateToolTokens } from './estimateTokens.ts';
import { serverRefOf } from './serverRefOf.ts';
import { internalNameOf, toolPathOf } from './toolPath.ts';

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
  /** The catalogue's name and description of the server, when its configuration carries them. */
  server_title?: string;
  server_description?: string;
};

type ServerTexts = Pick<CachedTool, 'server_title' | 'server_description'>;

/**
 * A server's title and description as the tools of the server carry them (the cache's and discovery's):
 * each one only when the server has it, an empty one being none.
 */
export function serverTextsOf(server: ServerTexts): ServerTexts {
  return {
    ...(server.server_title ? { server_title: server.server_title } : {}),
    ...(server.server_description ? { server_description: server.server_description } : {}),
  };
}

export type ToolLookup =
  | { kind: 'found'; tool: CachedTool }
  /**
   * The path names a server that is not online: `reason` says why in words an agent and an operator
   * can act on. `tool` is absent when the server never listed its tools (it failed to start).
   */
  | { kind: 'unavailable'; server_name: string; status: InstallationStatus; reason: string; tool?: CachedTool }
  | { kind: 'ambiguous'; tool_paths: string[] }
  /** The tool exists but its team or installation policy turned it off. */
  | { kind: 'disabled'; tool_path: string }
  /** The tool is new, or its definition changed, since a team admin approved the server's tools. */
  | { kind: 'held'; tool_path: string; change: 'new' | 'changed' }
  | { kind: 'unknown' };

/** A configured server that cannot serve now, in the words a lookup would use. */
export type UnavailableServer = { server_name: string; status: InstallationStatus; reason: string };

/** How a running server stands, as the catalogue's owner knows it; undefined when it does not run. */
export type ServerStanding = { status: InstallationStatus; reason: string | null };

/** The tools one running server listed, and the discovery that keeps them current. */
export type ServerTools = {
  list(): readonly Tool[];
  /** Whether the tools have been listed once. */
  discovered(): boolean;
  /**
   * Runs `tools/list`; discoveries of one server run one after another, never interleaved. With
   * `onlyWhenChanged`, a listing with the same definitions as the last one changes and reports nothing
   * (the scheduled re-lists: most find nothing new, and need not send the backend every tool again).
   */
  discover(listTools: () => Promise<Tool[]>, options?: { onlyWhenChanged?: boolean }): Promise<void>;
};

type Listing = {
  config: ServerConfiguration;
  serverName: string;
  tools: Tool[];
  /** Each listed tool's definition hash, for pinned definitions. */
  hashes: Map<string, string>;
  discovered: boolean;
  discovering: Promise<void>;
};

/**
 * The tools of every configured installation and the names they are reached by, apart from how
 * their servers are run: the names each installation's tools are listed under (`server:tool`), what
 * each running server listed (with `mcp.tools.discovered` after each listing and `mcp.tools.updated`
 * when one finds the list changed), the tools of online servers by team for discovery, and lookups by
 * tool path that say why a server that is not online cannot serve.
 */
export function createToolCatalogue(options: {
  events: EventSink;
  /** With authentication each client sees one team's tools, so names need no team qualifier. */
  teamScoped: boolean;
  /** How each running server stands; consulted for every lookup and for the online lists. */
  standing: (installationId: string) => ServerStanding | undefined;
}) {
  const { events } = options;
  let configured = new Map<string, ServerConfiguration>();
  let names = new Map<string, string>();
  const listings = new Map<string, Listing>();
  let dirty = true;

  let byInternalName = new Map<string, CachedTool[]>();
  /** Tool paths a policy turned off, by team: found by lookup to say so, never listed. */
  let disabledPaths = new Map<string, string>();
  /** Tool paths held back until their definition is approved, with their team and why. */
  let heldPaths = new Map<string, { teamId: string; change: 'new' | 'changed' }>();
  let online: CachedTool[] = [];
  let onlineByTeam = new Map<string, CachedTool[]>();

  const applyTools = (listing: Listing, next: Tool[]) => {
    const { config } = listing;
    const before = new Set(listing.tools.map((t) => t.name));
    const after = new Set(next.map((t) => t.name));
    const wasDiscovered = listing.discovered;
    listing.tools = next;
    listing.hashes = new Map(next.map((tool) => [tool.name, definitionHashOf(tool)]));
    listing.discovered = true;
    dirty = true;
    const counted = next.map((tool) => ({
      tool_name: tool.name,
      description: tool.description ?? '',
      input_schema: tool.inputSchema as Record<string, unknown>,
      token_count: estimateToolTokens(tool),
      ...(tool.annotations ? { annotations: tool.annotations as Record<string, unknown> } : {}),
      ...(tool.outputSchema ? { output_schema: tool.outputSchema as Record<string, unknown> } : {}),
      definition_hash: listing.hashes.get(tool.name) as string,
    }));
    events.emit('mcp.tools.discovered', {
      installation_id: config.installation_id,
      installation_name: config.installation_name,
      team_id: config.team_id,
      server_slug: config.server_slug,
      tool_count: next.length,
      total_tokens: counted.reduce((sum, t) => sum + t.token_count, 0),
      tools: counted,
      discovered_at: new Date().toISOString(),
    });
    const added = [...after].filter((name) => !before.has(name));
    const removed = [...before].filter((name) => !after.has(name));
    if (wasDiscovered && (added.length > 0 || removed.length > 0)) {
      events.emit('mcp.tools.updated', {
        ...serverRefOf(config),
        added_tools: added,
        removed_tools: removed,
        total_tools: next.length,
      });
    }
  };

  const rebuild = () => {
    if (!dirty) return;
    dirty = false;
    const next = new Map<string, CachedTool[]>();
    const nextOnline: CachedTool[] = [];
    const nextDisabled = new Map<string, string>();
    const nextHeld = new Map<string, { teamId: string; change: 'new' | 'changed' }>();
    for (const listing of listings.values()) {
      const { config, serverName } = listing;
      const isOnline = options.standing(config.installation_id)?.status === 'online';
      // The policy of the current configuration: a change to it applies without a new listing.
      const current = configured.get(config.installation_id);
      const disabled = new Set(current?.tool_policy?.disabled ?? []);
      const pins = current?.tool_pins;
      for (const tool of listing.tools) {
        const toolPath = toolPathOf(serverName, tool.name);
        if (disabled.has(tool.name)) {
          nextDisabled.set(toolPath, config.team_id);
          continue;
        }
        if (pins && pins[tool.name] !== listing.hashes.get(tool.name)) {
          nextHeld.set(toolPath, { teamId: config.team_id, change: pins[tool.name] ? 'changed' : 'new' });
          continue;
        }
        const internal = internalNameOf(toolPath) ?? toolPath;
        const entry: CachedTool = {
          internal_name: internal,
          tool_path: toolPath,
          server_name: serverName,
          tool_name: tool.name,
          description: tool.description ?? '',
          input_schema: tool.inputSchema as Record<string, unknown>,
          ...(tool.annotations ? { annotations: tool.annotations as Record<string, unknown> } : {}),
          transport: config.transport,
          installation_id: config.installation_id,
          team_id: config.team_id,
          server_slug: config.server_slug,
          ...serverTextsOf(config),
        };
        const list = next.get(internal) ?? [];
        list.push(entry);
        next.set(internal, list);
        if (isOnline) nextOnline.push(entry);
      }
    }
    byInternalName = next;
    disabledPaths = nextDisabled;
    heldPaths = nextHeld;
    online = nextOnline;
    onlineByTeam = new Map();
  };

  const reasonOf = (standing: ServerStanding) => standing.reason ?? `status ${standing.status}`;

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
      const standing = options.standing(id);
      if (!standing) {
        return { kind: 'unavailable', server_name: name, status: 'offline', reason: 'stopped by the backend' };
      }
      if (standing.status === 'online') return undefined;
      return { kind: 'unavailable', server_name: name, status: standing.status, reason: reasonOf(standing) };
    }
    return undefined;
  };

  return {
    /** The configured installations: names are settled for all of them; listings of removed ones go. */
    configure(list: readonly ServerConfiguration[]): void {
      configured = new Map(list.map((config) => [config.installation_id, config]));
      names = assignServerNames(list, { teamScoped: options.teamScoped });
      for (const id of listings.keys()) if (!configured.has(id)) listings.delete(id);
      dirty = true;
    },
    configuration: (installationId: string): ServerConfiguration | undefined => configured.get(installationId),
    configurations: (): ServerConfiguration[] => [...configured.values()],
    /** The name an installation's tools are listed under. */
    nameOf: (config: ServerConfiguration): string => names.get(config.installation_id) ?? config.installation_name,
    /** A server about to run starts with no tools listed (a fresh process may offer others). */
    open(config: ServerConfiguration, serverName: string): ServerTools {
      const listing: Listing = {
        config,
        serverName,
        tools: [],
        hashes: new Map(),
        discovered: false,
        discovering: Promise.resolve(),
      };
      listings.set(config.installation_id, listing);
      dirty = true;
      return {
        list: () => listing.tools,
        discovered: () => listing.discovered,
        discover(listTools, discoverOptions = {}) {
          const run = async () => {
            const tools = await listTools();
            // A server replaced or stopped meanwhile: its listing is not the catalogue's any more.
            if (listings.get(config.installation_id) !== listing) return;
            if (discoverOptions.onlyWhenChanged && listing.discovered && sameDefinitions(listing, tools)) return;
            applyTools(listing, tools);
          };
          listing.discovering = listing.discovering.then(run, run);
          return listing.discovering;
        },
      };
    },
    /** The server stopped running: its tools go, its configuration stays. */
    close(installationId: string): void {
      if (listings.delete(installationId)) dirty = true;
    },
    /** A server's status changed: the online lists are rebuilt on their next use. */
    changed(): void {
      dirty = true;
    },
    /** Tools of `online` servers only, of one team when `teamId` is given; the same array until something changes. */
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
      const disabledIn = disabledPaths.get(toolPath);
      if (disabledIn !== undefined && (teamId === undefined || disabledIn === teamId)) {
        return { kind: 'disabled', tool_path: toolPath };
      }
      const held = heldPaths.get(toolPath);
      if (held && (teamId === undefined || held.teamId === teamId)) {
        return { kind: 'held', tool_path: toolPath, change: held.change };
      }
      const all = byInternalName.get(internal);
      const matches = teamId === undefined ? all : all?.filter((tool) => tool.team_id === teamId);
      if (!matches || matches.length === 0) return unavailableServer(toolPath, teamId) ?? { kind: 'unknown' };
      if (matches.length > 1) return { kind: 'ambiguous', tool_paths: matches.map((e) => e.tool_path) };
      const tool = matches[0] as CachedTool;
      // The internal form drops where the `:` was; a path naming another split is not this tool.
      if (tool.tool_path !== toolPath) return unavailableServer(toolPath, teamId) ?? { kind: 'unknown' };
      const standing = options.standing(tool.installation_id);
      if (!standing)
        return {
          kind: 'unavailable',
          server_name: tool.server_name,
          status: 'offline',
          reason: 'stopped by the backend',
          tool,
        };
      if (standing.status !== 'online') {
        return {
          kind: 'unavailable',
          server_name: tool.server_name,
          status: standing.status,
          reason: reasonOf(standing),
          tool,
        };
      }
      return { kind: 'found', tool };
    },
    /** Every configured server of `teamId` (every one without) that is not online, and why. */
    unavailable(teamId?: string): UnavailableServer[] {
      const out: UnavailableServer[] = [];
      for (const [id, config] of configured) {
        if (teamId !== undefined && config.team_id !== teamId) continue;
        const standing = options.standing(id);
        const server_name = names.get(id) ?? config.installation_name;
        if (!standing) out.push({ server_name, status: 'offline', reason: 'stopped by the backend' });
        else if (standing.status !== 'online') {
          out.push({ server_name, status: standing.status, reason: reasonOf(standing) });
        }
      }
      return out;
    },
  };
}

export type ToolCatalogue = ReturnType<typeof createToolCatalogue>;

/** Whether `tools` are the listing's tools, in the same order, with the same definitions. */
function sameDefinitions(listing: Listing, tools: readonly Tool[]): boolean {
  return (
    tools.length === listing.tools.length &&
    tools.every(
      (tool, i) => listing.tools[i]?.name === tool.name && listing.hashes.get(tool.name) === definitionHashOf(tool),
    )
  );
}

/** SHA-256 over the canonical JSON of the tool's definition: the hash the backend pins. */
export function definitionHashOf(tool: Tool): string {
  return createHash('sha256')
    .update(canonicalJson(toolDefinitionOf(tool)))
    .digest('hex');
}
