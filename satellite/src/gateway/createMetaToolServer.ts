import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { EventSink } from '../events/eventSink.ts';
import type { CachedTool, ServerRuntime } from '../runtime/createServerRuntime.ts';
import type { SearchableTool, ToolSearchIndex } from '../search/searchableTool.ts';
import type { createArgumentValidator } from './createArgumentValidator.ts';

/** The two tools of `tools/list`, exactly; they never change, so no list-changed notice is ever sent. */
export const metaTools: Tool[] = [
  {
    name: 'discover_mcp_tools',
    description:
      'Search the tools of every MCP server this satellite serves. Returns tool paths (serverName:toolName) to pass to execute_mcp_tool.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What the tool should do, or words from its name or server' },
        limit: { type: 'number', description: 'Maximum number of results', default: 10 },
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

const discoverArguments = z.object({ query: z.string(), limit: z.number().int().min(1).max(1000).default(10) });
const executeArguments = z.object({ tool_path: z.string().min(1), arguments: z.record(z.string(), z.unknown()) });

/**
 * The spec's capabilities are `{tools: {}}` only, yet resources, templates and prompts must answer
 * with empty lists; the SDK refuses handlers for capabilities not declared, so those three are let
 * through here.
 */
const answeredWithoutCapability = new Set(['resources/list', 'resources/templates/list', 'prompts/list']);
class MetaToolServer extends Server {
  protected override assertRequestHandlerCapability(method: string): void {
    if (answeredWithoutCapability.has(method)) return;
    super.assertRequestHandlerCapability(method);
  }
}

/** The text a failing tool gave, as the request log's error message. */
function firstText(result: CallToolResult): string {
  const item = result.content?.find((c) => c.type === 'text');
  return item && item.type === 'text' ? item.text : 'the tool reported an error';
}

function textResult(value: unknown, isError = false): CallToolResult {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

function invalidParams(error: z.ZodError): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `Invalid arguments: ${error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ')}`,
  );
}

export type MetaToolDependencies = {
  runtime: ServerRuntime;
  search: ToolSearchIndex;
  /** Makes one more index, so each team's discovery keeps its own instead of rebuilding a shared one. */
  createSearch?: () => ToolSearchIndex;
  validator: ReturnType<typeof createArgumentValidator>;
  /** Called after each execute_mcp_tool that reached a server, for the session's statistics. */
  onExecuted?: (tool: CachedTool, ok: boolean) => void;
  /** Where each execution that reached a server is reported as `mcp.tool.executed` (request logs). */
  events?: EventSink;
};

/** Tool responses kept in request logs are capped, so one huge result cannot fill an event batch. */
const maxLoggedResponseChars = 64 * 1024;

function loggedResponse(result: CallToolResult): unknown {
  const text = JSON.stringify(result);
  if (text.length <= maxLoggedResponseChars) return result;
  return { truncated: true, original_chars: text.length, preview: text.slice(0, maxLoggedResponseChars) };
}

/**
 * Whose tools a call may see: an authenticated session's team (and user, for the user level of the
 * configuration), or null without authentication (every tool the satellite serves).
 */
export type ToolScope = { teamId: string; userId: string } | null;

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
    const view = online.map((t) => ({
      tool_path: t.tool_path,
      name: t.tool_name,
      description: t.description,
      server_slug: t.server_slug,
      server_name: t.server_name,
      transport: t.transport,
    }));
    views.set(key, { source: online, view });
    return view;
  };
}

export function createToolHandlers(deps: MetaToolDependencies) {
  const searchable = createSearchableView(deps.runtime);
  const teamSearches = new Map<string, ToolSearchIndex>();
  const searchOf = (scope: ToolScope) => {
    if (!scope || !deps.createSearch) return deps.search;
    let index = teamSearches.get(scope.teamId);
    if (!index) {
      index = deps.createSearch();
      teamSearches.set(scope.teamId, index);
    }
    return index;
  };

  const discover = (raw: unknown, scope: ToolScope = null): CallToolResult => {
    const parsed = discoverArguments.safeParse(raw ?? {});
    if (!parsed.success) throw invalidParams(parsed.error);
    const { query, limit } = parsed.data;
    const began = performance.now();
    const search = searchOf(scope);
    search.setTools(searchable(scope));
    const results = search.search(query, limit);
    const searchTimeMs = performance.now() - began;
    return textResult({
      tools: results.map((r) => ({
        tool_path: r.tool.tool_path,
        description: r.tool.description,
        server_name: r.tool.server_name,
        transport: r.tool.transport,
        relevance_score: r.score,
      })),
      total_found: results.length,
      search_time_ms: Math.round(searchTimeMs * 1000) / 1000,
      query,
    });
  };

  const execute = async (
    raw: unknown,
    scope: ToolScope = null,
    context: { sessionId?: string } = {},
  ): Promise<CallToolResult> => {
    const parsed = executeArguments.safeParse(raw ?? {});
    if (!parsed.success) throw invalidParams(parsed.error);
    const { tool_path: toolPath, arguments: args } = parsed.data;
    // Another team's tool is "unknown" to this scope, exactly like a tool that does not exist, so
    // execution reveals nothing about other teams. A user-level configuration (spec: template, team,
    // user) would be chosen here from scope.userId; the distributed configuration has no user level yet.
    const lookup = await deps.runtime.resolve(toolPath, scope?.teamId);
    switch (lookup.kind) {
      case 'unknown':
        return textResult(
          `Unknown tool "${toolPath}". Tool paths have the form serverName:toolName; use discover_mcp_tools to find them.`,
          true,
        );
      case 'ambiguous':
        return textResult(
          `Tool path "${toolPath}" is ambiguous: ${lookup.tool_paths.join(', ')} share one internal name, so the satellite refuses to guess. Ask an administrator to rename one of the installations.`,
          true,
        );
      case 'unavailable':
        return textResult(
          `MCP server "${lookup.server_name}" is not online (status: ${lookup.status}; ${lookup.reason}); its tools cannot be executed until it is.`,
          true,
        );
      case 'found':
        break;
    }
    const tool = lookup.tool;
    const check = deps.validator.check(tool.input_schema, args);
    if (!check.ok) {
      return textResult(`Invalid arguments for "${toolPath}": ${check.problems.join('; ')}`, true);
    }
    const began = performance.now();
    const executedAt = new Date().toISOString();
    const requestLog = (success: boolean, response: CallToolResult | undefined, errorMessage: string | null) => {
      const config = deps.runtime.configuration(tool.installation_id) ?? tool.server.config;
      deps.events?.emit('mcp.tool.executed', {
        installation_id: tool.installation_id,
        team_id: tool.team_id,
        server_slug: tool.server_slug,
        tool_name: tool.tool_name,
        session_id: context.sessionId ?? null,
        request_params: args,
        // The response only when the installation asked for it (spec: request_logging_enabled).
        ...(config.settings.request_logging_enabled && response ? { tool_response: loggedResponse(response) } : {}),
        duration_ms: Math.round((performance.now() - began) * 1000) / 1000,
        success,
        error_message: errorMessage?.slice(0, 4000) ?? null,
        executed_at: executedAt,
      });
    };
    try {
      // The runtime speaks the SDK's v2 types; this server is still on v1, whose result type is narrower.
      const result = (await deps.runtime.callTool(tool, args)) as CallToolResult;
      deps.onExecuted?.(tool, !result.isError);
      requestLog(!result.isError, result, result.isError ? firstText(result) : null);
      return textResult(result, result.isError === true);
    } catch (error) {
      deps.onExecuted?.(tool, false);
      requestLog(false, undefined, (error as Error).message);
      // Only the message: errors from our runtime are written for clients, and a server's own
      // error message reaches its caller as the server wrote it.
      return textResult(`Tool "${toolPath}" failed: ${(error as Error).message}`, true);
    }
  };

  return { discover, execute };
}

/** One MCP server per client session, answering the spec's methods with the two meta-tools. */
export function createMetaToolServer(
  handlers: ReturnType<typeof createToolHandlers>,
  options: { onExecute?: () => void; scope?: { teamId: string; userId: string } | null } = {},
): Server {
  const scope = options.scope ?? null;
  const server = new MetaToolServer({ name: 'service-satellite', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: metaTools }));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    switch (request.params.name) {
      case 'discover_mcp_tools':
        return handlers.discover(request.params.arguments, scope);
      case 'execute_mcp_tool':
        options.onExecute?.();
        return handlers.execute(request.params.arguments, scope, extra.sessionId ? { sessionId: extra.sessionId } : {});
      default:
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown tool "${request.params.name}": this server has discover_mcp_tools and execute_mcp_tool`,
        );
    }
  });
  return server;
}
