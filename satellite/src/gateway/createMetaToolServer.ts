import {
  type CallToolResult,
  type ProtocolEra,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { EventSink } from '../events/eventSink.ts';
import type { CachedTool, ServerRuntime } from '../runtime/createServerRuntime.ts';
import type { ToolCallOptions } from '../runtime/managedServer.ts';
import type { DiscoveryEngine, TeamDiscovery } from '../search/createDiscoveryEngine.ts';
import type { SearchableTool } from '../search/searchableTool.ts';
import { toDiscoveredTool } from '../search/toDiscoveredTool.ts';
import { toSearchableTool } from '../search/toSearchableTool.ts';
import { canElicitForm } from './confirmToolCall.ts';
import type { createArgumentValidator } from './createArgumentValidator.ts';
import type { RoundContext, SuspendedCalls } from './createSuspendedCalls.ts';
import { createToolExecutor, type ToolScope, toolError } from './createToolExecutor.ts';
import { maxPhrasings, metaToolArgumentProblem } from './metaToolArgumentProblem.ts';

export type { ToolScope } from './createToolExecutor.ts';

/** The two tools of `tools/list`, exactly; they never change, so no list-changed notice is ever sent. */
export const metaTools: Tool[] = [
  {
    name: 'discover_mcp_tools',
    description:
      'Find tools among every MCP server this satellite serves. Send keywords rather than a sentence: the action ' +
      'and the thing it acts on ("create directory", "commit changes git", "query table sql"), names the tool is ' +
      'likely to have ("read_file", "list_issues", "send_message"), the product or server if you know it ' +
      '("github", "postgres", "slack"), and synonyms of the key words ("folder directory", "delete remove"). ' +
      'Put other phrasings of the same need in `queries`: each is searched and the lists are merged, so a tool ' +
      'any phrasing finds rises. Results come best match first, each with its tool path (serverName:toolName) ' +
      'to pass to execute_mcp_tool, its input schema and its annotations, and a relevance_score between 0 and 1 ' +
      'where lower is closer. If none fits, search again with other words. `limit` caps how many tools come ' +
      "back (default 10). Exact matching is available with Fuse.js extended-search operators: =exact, 'includes, " +
      '^prefix, suffix$, !not, and | for OR (for example "^git | ^github").',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description:
            'Keywords for the tool you need: the action and its object, likely tool names, the server or product, ' +
            'and synonyms (for example "create directory folder mkdir"); or Fuse.js operators',
        },
        queries: {
          type: 'array',
          items: { type: 'string' },
          maxItems: maxPhrasings,
          description:
            `Optional: up to ${maxPhrasings} other phrasings of the same need (for example ["git commit", ` +
            '"record staged changes", "save changes to repository"]), searched with query and merged by ' +
            'reciprocal rank',
        },
        limit: {
          type: 'number',
          description: 'Maximum number of tools returned, best first (1 to 1000)',
          default: 10,
        },
        include_schemas: {
          type: 'boolean',
          description:
            "Include each tool's input_schema and annotations (default true); false returns only the five core fields",
          default: true,
        },
      },
      required: ['query'],
    },
  },
  {
    name: 'execute_mcp_tool',
    description:
      'Run a tool found with discover_mcp_tools, by its tool path (serverName:toolName), with its arguments.',
    inputSchema: {
      type: 'object',
      properties: {
        tool_path: { type: 'string', description: 'serverName:toolName, as discover_mcp_tools returned it' },
        arguments: { type: 'object', description: "The tool's arguments, as its input schema describes them" },
      },
      required: ['tool_path', 'arguments'],
    },
  },
];

/** The identity the satellite's MCP server states (in 2026-07-28 results, in every one). */
export const satelliteServerInfo = { name: 'service-satellite', version: '0.1.0' } as const;

/** discover_mcp_tools answers one text item holding its results as JSON, the shape its clients parse. */
function textResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

export type MetaToolDependencies = {
  runtime: ServerRuntime;
  /** Discovery: each team (and unscoped sessions) gets its own search from it, over its own tools. */
  discovery: DiscoveryEngine;
  validator: ReturnType<typeof createArgumentValidator>;
  /** Called after each execute_mcp_tool that reached a server, for the session's statistics. */
  onExecuted?: (tool: CachedTool, ok: boolean) => void;
  /** Where each execution that reached a server is reported as `mcp.tool.executed` (request logs). */
  events?: EventSink;
};

/**
 * Searchable views of the cache's online tools, one per team (and one for unscoped sessions), each
 * rebuilt only when the cache hands out a new array.
 */
function createSearchableView(runtime: ServerRuntime) {
  const views = new Map<string, { source: readonly CachedTool[]; view: SearchableTool[] }>();
  return (scope: ToolScope) => {
    const online = runtime.onlineTools(scope?.teamId);
    const key = scope?.teamId ?? '';
    const current = views.get(key);
    if (current?.source === online) return current.view;
    const view = online.map(toSearchableTool);
    views.set(key, { source: online, view });
    return view;
  };
}

export function createToolHandlers(deps: MetaToolDependencies) {
  const searchable = createSearchableView(deps.runtime);
  const teamSearches = new Map<string, TeamDiscovery>();
  const searchOf = (scope: ToolScope) => {
    const key = scope?.teamId ?? '';
    let search = teamSearches.get(key);
    if (!search) {
      search = deps.discovery.createSearch();
      teamSearches.set(key, search);
    }
    return search;
  };

  const discover = async (raw: unknown, scope: ToolScope = null): Promise<CallToolResult> => {
    const problem = metaToolArgumentProblem('discover_mcp_tools', raw);
    if (problem) return toolError(problem);
    const {
      query,
      queries = [],
      limit = 10,
      include_schemas: includeSchemas = true,
    } = raw as { query: string; queries?: string[]; limit?: number; include_schemas?: boolean };
    const began = performance.now();
    const search = searchOf(scope);
    search.setTools(searchable(scope));
    const { results, total, ranking } = await search.discover([query, ...queries], limit);
    const searchTimeMs = performance.now() - began;
    // Servers still starting, retrying or failed have no tools in the results: say which, and why.
    const unavailable = deps.runtime.unavailable(scope?.teamId);
    return textResult({
      tools: results.map((result) => toDiscoveredTool(result, includeSchemas)),
      total_found: total,
      search_time_ms: Math.round(searchTimeMs * 1000) / 1000,
      query,
      ...(unavailable.length > 0 ? { unavailable_servers: unavailable } : {}),
      // Only where a model of meaning is configured: whether it served this call, and why not.
      ...(ranking.meaning ? { ranking } : {}),
    });
  };

  const execute = createToolExecutor(deps);

  return { discover, execute };
}

export type ToolHandlers = ReturnType<typeof createToolHandlers>;

/**
 * A 2025 session is told its capabilities are `{tools: {}}` only, yet resources, templates and
 * prompts must answer with empty lists; the SDK refuses handlers for capabilities not declared, so
 * those are let through here. A 2026-07-28 client, which learns capabilities from server/discover,
 * is told the truth: resources and prompts are answered (empty).
 */
const answeredWithoutCapability = new Set([
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
]);
class MetaToolServer extends Server {
  protected override assertRequestHandlerCapability(method: string): void {
    if (answeredWithoutCapability.has(method)) return;
    super.assertRequestHandlerCapability(method);
  }
}

/** Which client capability a server-initiated request needs before the satellite relays it. */
const capabilityFor: Record<string, 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * The refusal a server gets for a request its caller cannot answer: the MCP rule is that a server
 * asks only for what the client declared, so the satellite never forwards such a request.
 */
function refuseUndeclared(request: { method: string }, capabilities: Record<string, unknown> | undefined) {
  const capability = capabilityFor[request.method];
  if (!capability) {
    return new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `The satellite does not relay "${request.method}" requests to its clients.`,
    );
  }
  if (capabilities?.[capability] === undefined) {
    return new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `The MCP client that made this call did not declare the "${capability}" capability, so the satellite cannot relay ${request.method} to it.`,
    );
  }
  return undefined;
}

/** Whether a client declared any capability a server's request during a call could need. */
export function asksForInput(capabilities: Record<string, unknown> | undefined): boolean {
  if (!capabilities) return false;
  for (const capability of Object.values(capabilityFor)) if (capabilities[capability] !== undefined) return true;
  return false;
}

/**
 * execute_mcp_tool for a caller that declared no capability a server's request during the call
 * could need: every such request is refused on the spot, so a 2026-07-28 call never waits for a
 * retry and needs no place among the suspended calls. `sessionId` names a 2025 caller's session in
 * the request log.
 */
export function executeWithoutInput(
  handlers: ToolHandlers,
  raw: unknown,
  scope: ToolScope,
  capabilities: Record<string, unknown> | undefined,
  round: RoundContext,
  sessionId?: string,
): Promise<CallToolResult> {
  return handlers.execute(raw, scope, {
    ...(sessionId ? { sessionId } : {}),
    canElicit: canElicitForm(capabilities),
    signal: round.signal,
    ...(round.onProgress ? { onProgress: round.onProgress } : {}),
    onServerRequest: (request) =>
      Promise.reject(
        refuseUndeclared(request, capabilities) ??
          new ProtocolError(ProtocolErrorCode.MethodNotFound, `${request.method} cannot be relayed`),
      ),
  });
}

/** How long a relayed request to a legacy client may wait for the person behind it. */
const relayTimeoutMs = 10 * 60 * 1000;

/**
 * The client's cancellation of this request, and its stream going away, as one signal. Both sources
 * live only as long as the request, so plain listeners do; `AbortSignal.any` would do the same with
 * a composite signal that costs more on every call than the call's own work.
 */
function cancellationOf(ctx: ServerContext): AbortSignal {
  const request = ctx.mcpReq.signal;
  const stream = ctx.http?.req?.signal;
  if (!stream) return request;
  if (request.aborted) return request;
  if (stream.aborted) return stream;
  const either = new AbortController();
  const fromRequest = () => either.abort(request.reason);
  const fromStream = () => either.abort(stream.reason);
  request.addEventListener('abort', fromRequest, { once: true });
  stream.addEventListener('abort', fromStream, { once: true });
  either.signal.addEventListener(
    'abort',
    () => {
      request.removeEventListener('abort', fromRequest);
      stream.removeEventListener('abort', fromStream);
    },
    { once: true },
  );
  return either.signal;
}

/**
 * Progress for the client's token on this request (undefined when it asked for none), and a way to
 * wait until every notification handed over so far is written: a 2026-07-28 response ends with its
 * result, so the result must not overtake the last progress.
 */
function progressOf(ctx: ServerContext) {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  let written: Promise<void> = Promise.resolve();
  const onProgress: ToolCallOptions['onProgress'] =
    progressToken === undefined
      ? undefined
      : (progress) => {
          written = written
            .then(() => ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, ...progress } }))
            .catch(() => {});
        };
  const flushed = async () => {
    if (!onProgress) return;
    // A notification the server sent just before its result may still be on its way through the
    // runtime's client: one turn of the event loop lets it arrive before the result goes out.
    await new Promise((resolve) => setImmediate(resolve));
    await written;
  };
  return { onProgress, flushed };
}

export type MetaToolServerOptions = {
  /** The protocol generation this instance serves: a 2025 session or one 2026-07-28 request. */
  era: ProtocolEra;
  /** The caller's tools: its team's only when it is authenticated. */
  scope: ToolScope;
  /** Counts the session's executions. */
  onExecute?: () => void;
  /** Modern requests: where calls waiting for the client's input are kept between rounds. */
  suspended?: SuspendedCalls;
};

/**
 * One MCP server answering initialize, the list methods and tools/call with the two meta-tools: per
 * legacy session, or per modern request (built fresh for each, which is what lets any replica answer).
 *
 * During execute_mcp_tool the client's progress token, its cancellation and the server's own
 * requests travel with the call: a legacy client gets the server's elicitation, sampling and roots
 * requests relayed on its session; a modern client gets them as an input-required result and
 * continues the same upstream call by retrying (createSuspendedCalls).
 */
export function createMetaToolServer(handlers: ToolHandlers, options: MetaToolServerOptions): Server {
  const { scope } = options;
  const server = new MetaToolServer(
    { ...satelliteServerInfo },
    {
      capabilities: options.era === 'modern' ? { tools: {}, resources: {}, prompts: {} } : { tools: {} },
      // The meta-tools never change; the lists are the same for every client of a team.
      cacheHints: {
        'tools/list': { ttlMs: 3_600_000, cacheScope: 'public' },
        'resources/list': { ttlMs: 3_600_000, cacheScope: 'public' },
        'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'public' },
        'prompts/list': { ttlMs: 3_600_000, cacheScope: 'public' },
        'server/discover': { ttlMs: 3_600_000, cacheScope: 'public' },
      },
    },
  );
  server.setRequestHandler('tools/list', () => ({ tools: metaTools }));
  server.setRequestHandler('resources/list', () => ({ resources: [] }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
  server.setRequestHandler('prompts/list', () => ({ prompts: [] }));
  server.setRequestHandler('resources/read', (request) => {
    throw new ResourceNotFoundError(request.params.uri, 'The satellite serves no resources');
  });

  const executeLegacy = async (raw: unknown, ctx: ServerContext) => {
    const signal = cancellationOf(ctx);
    const { onProgress, flushed } = progressOf(ctx);
    const result = await handlers.execute(raw, scope, {
      ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
      canElicit: canElicitForm(server.getClientCapabilities()),
      signal,
      ...(onProgress ? { onProgress } : {}),
      onServerRequest: async (request) => {
        const refusal = refuseUndeclared(request, server.getClientCapabilities());
        if (refusal) throw refusal;
        return (await ctx.mcpReq.send({ method: request.method, params: request.params ?? {} } as never, {
          signal,
          timeout: relayTimeoutMs,
        })) as Record<string, unknown>;
      },
    });
    await flushed();
    return result;
  };

  const executeModern = async (raw: unknown, ctx: ServerContext, suspended: SuspendedCalls) => {
    const { onProgress, flushed } = progressOf(ctx);
    const round: RoundContext = { signal: cancellationOf(ctx), onProgress };
    const toolPath = (raw as { tool_path?: unknown } | undefined)?.tool_path;
    const owner = { ownerKey: scope ? `${scope.teamId}:${scope.userId}` : '', toolPath: String(toolPath) };
    const requestState = ctx.mcpReq.requestState<string>();
    if (typeof requestState === 'string') {
      const outcome = await suspended.resume(requestState, owner, ctx.mcpReq.inputResponses, round);
      await flushed();
      return outcome;
    }
    // Capabilities are per request in 2026-07-28: the ones this request declared.
    const capabilities = server.getClientCapabilities();
    if (!asksForInput(capabilities)) {
      const result = await executeWithoutInput(handlers, raw, scope, capabilities, round);
      await flushed();
      return result;
    }
    const outcome = await suspended.start(
      owner,
      (callOptions) =>
        handlers.execute(raw, scope, {
          ...callOptions,
          canElicit: canElicitForm(capabilities),
          onServerRequest: (request) => {
            const refusal = refuseUndeclared(request, capabilities);
            return refusal ? Promise.reject(refusal) : callOptions.onServerRequest(request);
          },
        }),
      round,
    );
    await flushed();
    return outcome;
  };

  server.setRequestHandler('tools/call', async (request, ctx) => {
    switch (request.params.name) {
      case 'discover_mcp_tools':
        return handlers.discover(request.params.arguments, scope);
      case 'execute_mcp_tool': {
        options.onExecute?.();
        const raw = request.params.arguments;
        if (options.era === 'modern' && options.suspended) return executeModern(raw, ctx, options.suspended);
        return executeLegacy(raw, ctx);
      }
      default:
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool "${request.params.name}": this server has discover_mcp_tools and execute_mcp_tool`,
        );
    }
  });
  return server;
}
