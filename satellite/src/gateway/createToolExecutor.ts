import type { CallToolResult } from '@modelcontextprotocol/server';
import type { EventSink } from '../events/eventSink.ts';
import type { CachedTool, ServerRuntime, ToolLookup } from '../runtime/createServerRuntime.ts';
import { toolError } from '../runtime/createUpstreamClient.ts';
import type { ToolCallOptions } from '../runtime/managedServer.ts';
import { confirmToolCall } from './confirmToolCall.ts';
import type { createArgumentValidator } from './createArgumentValidator.ts';
import { metaToolArgumentProblem } from './metaToolArgumentProblem.ts';

/**
 * Whose tools a call may see: an authenticated client's team (and user, for the user level of the
 * configuration), or null without authentication (every tool the satellite serves).
 */
export type ToolScope = { teamId: string; userId: string } | null;

/** What the protocol layer knows about one execute_mcp_tool call besides its arguments. */
export type ExecutionContext = ToolCallOptions & {
  /** The legacy session the call came in on; modern (stateless) calls have none. */
  sessionId?: string;
  /** Whether the client declared it can be asked with a form (elicitation): confirmations need it. */
  canElicit?: boolean;
};

/** Tool responses kept in request logs are capped, so one huge result cannot fill an event batch. */
const maxLoggedResponseChars = 64 * 1024;

function loggedResponse(result: CallToolResult): unknown {
  const text = JSON.stringify(result);
  if (text.length <= maxLoggedResponseChars) return result;
  return { truncated: true, original_chars: text.length, preview: text.slice(0, maxLoggedResponseChars) };
}

/** The text a failing tool gave, as the request log's error message. */
function firstText(result: CallToolResult): string {
  const item = result.content?.find((c) => c.type === 'text');
  return item && item.type === 'text' ? item.text : 'the tool reported an error';
}

export { toolError };

export type ExecutorDependencies = {
  runtime: ServerRuntime;
  validator: ReturnType<typeof createArgumentValidator>;
  /** Called after each execute_mcp_tool that reached a server, for the session's statistics. */
  onExecuted?: (tool: CachedTool, ok: boolean) => void;
  /** Where each execution that reached a server is reported as `mcp.tool.executed` (request logs). */
  events?: EventSink;
};

/**
 * execute_mcp_tool: finds the tool by its path among the caller's tools, checks its arguments
 * against the tool's input schema, and hands back the server's own result, untouched (content
 * items of every type, structured content, `isError`, `_meta`). Everything that goes wrong before
 * or during the call is a tool error naming what to change, so the calling agent can correct
 * itself; only a cancelled call rejects (the protocol layer answers nothing for it).
 */
export function createToolExecutor(deps: ExecutorDependencies) {
  return async function execute(
    raw: unknown,
    scope: ToolScope = null,
    context: ExecutionContext = {},
  ): Promise<CallToolResult> {
    const problem = metaToolArgumentProblem('execute_mcp_tool', raw);
    if (problem) return toolError(problem);
    const { tool_path: toolPath, arguments: args } = raw as { tool_path: string; arguments: Record<string, unknown> };
    // Another team's tool is "unknown" to this scope, exactly like a tool that does not exist, so
    // execution reveals nothing about other teams. A user-level configuration would be chosen here
    // from scope.userId; the distributed configuration has no user level yet. A remote server found
    // offline is reconnected first, so the call after it comes back is not refused.
    const lookup = await deps.runtime.resolve(toolPath, scope?.teamId);
    if (lookup.kind !== 'found') return refusalOf(toolPath, lookup);
    const tool = lookup.tool;
    const check = deps.validator.check(tool.input_schema, args);
    if (!check.ok) {
      return toolError(
        `Invalid arguments for "${toolPath}": ${check.problems.join('; ')}. Its input schema is in discover_mcp_tools' results.`,
      );
    }
    const { sessionId: _session, canElicit, ...callOptions } = context;
    const policy = deps.runtime.configuration(tool.installation_id)?.tool_policy;
    const refusal = await confirmToolCall(tool, args, policy, { ...callOptions, canElicit: canElicit ?? false });
    if (refusal) return refusal;
    // Asking the person may take minutes: a definition a re-list found changed meanwhile (or a policy
    // that turned the tool off) refuses the call now instead of letting it run as approved.
    const again = deps.runtime.lookup(toolPath, scope?.teamId);
    if (again.kind === 'held' || again.kind === 'disabled') return refusalOf(toolPath, again);
    const began = performance.now();
    const executedAt = new Date().toISOString();
    const requestLog = (success: boolean, response: CallToolResult | undefined, errorMessage: string | null) => {
      if (!deps.events) return;
      const config = deps.runtime.configuration(tool.installation_id);
      deps.events.emit('mcp.tool.executed', {
        installation_id: tool.installation_id,
        team_id: tool.team_id,
        server_slug: tool.server_slug,
        tool_name: tool.tool_name,
        session_id: context.sessionId ?? null,
        request_params: args,
        // The response only when the installation asked for it (request_logging_enabled).
        ...(config?.settings.request_logging_enabled && response ? { tool_response: loggedResponse(response) } : {}),
        duration_ms: Math.round((performance.now() - began) * 1000) / 1000,
        success,
        error_message: errorMessage?.slice(0, 4000) ?? null,
        executed_at: executedAt,
      });
    };
    try {
      const result = (await deps.runtime.callTool(tool, args, {
        ...callOptions,
        userId: scope?.userId ?? null,
      })) as CallToolResult;
      deps.onExecuted?.(tool, !result.isError);
      requestLog(!result.isError, result, result.isError ? firstText(result) : null);
      return result;
    } catch (error) {
      deps.onExecuted?.(tool, false);
      const message = (error as Error).message;
      requestLog(false, undefined, context.signal?.aborted ? `cancelled by the client: ${message}` : message);
      if (context.signal?.aborted) throw error;
      // Only the message: errors from our runtime are written for clients, and a server's own
      // error message reaches its caller as the server wrote it.
      return toolError(`Tool "${toolPath}" failed: ${message}`);
    }
  };
}

/** The tool error answering a lookup that found no callable tool. */
function refusalOf(toolPath: string, lookup: Exclude<ToolLookup, { kind: 'found' }>): CallToolResult {
  switch (lookup.kind) {
    case 'unknown':
      return toolError(
        `Unknown tool "${toolPath}". Tool paths have the form serverName:toolName; use discover_mcp_tools to find them.`,
      );
    case 'ambiguous':
      return toolError(
        `Tool path "${toolPath}" is ambiguous: ${lookup.tool_paths.join(', ')} share one internal name, so the satellite refuses to guess. Ask an administrator to rename one of the installations.`,
      );
    case 'unavailable':
      return toolError(
        `MCP server "${lookup.server_name}" is not online (status: ${lookup.status}; ${lookup.reason}); its tools cannot be executed until it is.`,
      );
    case 'disabled':
      return toolError(
        `Tool "${toolPath}" is disabled by its team's tool policy; a team admin can enable it in the Tools section of the installation's page in the console.`,
      );
    case 'held':
      return toolError(
        lookup.change === 'new'
          ? `Tool "${toolPath}" is new since a team admin approved this server's tools; it is held back until one approves it in the Tool definitions section of the installation's page in the console.`
          : `Tool "${toolPath}" changed its definition since a team admin approved it; it is held back until one approves the change in the Tool definitions section of the installation's page in the console.`,
      );
  }
}

export type ToolExecutor = ReturnType<typeof createToolExecutor>;
