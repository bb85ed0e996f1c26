import type { CallToolResult } from '@modelcontextprotocol/server';
import { annotatedDestructive, needsConfirmation, type ServerToolPolicy } from '@orbital/contracts';
import type { CachedTool } from '../runtime/createServerRuntime.ts';
import { toolError } from '../runtime/createUpstreamClient.ts';
import type { ToolCallOptions } from '../runtime/managedServer.ts';

/** Whether declared client capabilities let the satellite ask the person behind the client with a form. */
export function canElicitForm(capabilities: Record<string, unknown> | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  if (elicitation === undefined || elicitation === null) return false;
  // An empty object is form support (2025-06-18); later clients may name form and url apart.
  return Object.keys(elicitation).length === 0 || elicitation.form !== undefined;
}

function whyConfirm(policy: ServerToolPolicy | undefined, tool: CachedTool): string {
  return policy?.confirm.includes(tool.tool_name)
    ? 'a team admin asked for confirmation before it runs'
    : annotatedDestructive(tool.annotations)
      ? 'its server marks it destructive'
      : 'its policy asks for confirmation';
}

/**
 * The confirmation a tool's policy asks for before it runs: null when it may run, else the tool error
 * to answer. The caller is asked by elicitation (a yes/no form) through the same path a server's own
 * requests take to the client, so a 2025 session gets the request on its stream and a 2026-07-28 call
 * gets it as input required. A client that cannot be asked gets a tool error saying why, unless the
 * installation lets such calls run unconfirmed.
 */
export async function confirmToolCall(
  tool: CachedTool,
  args: Record<string, unknown>,
  policy: ServerToolPolicy | undefined,
  context: Pick<ToolCallOptions, 'onServerRequest' | 'signal'> & { canElicit?: boolean },
): Promise<CallToolResult | null> {
  if (!needsConfirmation(policy, tool.tool_name, tool.annotations)) return null;
  const why = whyConfirm(policy, tool);
  if (!context.canElicit || !context.onServerRequest) {
    if (policy?.without_elicitation === 'run') return null;
    return toolError(
      `"${tool.tool_path}" was not run: it needs the user's confirmation (${why}), and this MCP client cannot ask for it (it did not declare the elicitation capability). Use a client that supports elicitation, or ask a team admin to change the tool's confirmation rule.`,
    );
  }
  let answer: Record<string, unknown>;
  try {
    answer = await context.onServerRequest({
      method: 'elicitation/create',
      params: {
        message: `Run the tool "${tool.tool_path}"? ${why[0]?.toUpperCase()}${why.slice(1)}. Arguments: ${JSON.stringify(args).slice(0, 2000)}`,
        requestedSchema: {
          type: 'object',
          properties: {
            confirm: { type: 'boolean', title: 'Run it', description: `Run ${tool.tool_path} with these arguments` },
          },
          required: ['confirm'],
        },
      },
    });
  } catch (error) {
    if (context.signal?.aborted) throw error;
    return toolError(`"${tool.tool_path}" was not run: asking for confirmation failed (${(error as Error).message}).`);
  }
  const content = answer.content as Record<string, unknown> | undefined;
  if (answer.action === 'accept' && content?.confirm === true) return null;
  const how = answer.action === 'accept' ? 'did not confirm it' : answer.action === 'cancel' ? 'cancelled' : 'declined';
  return toolError(`"${tool.tool_path}" was not run: the user ${how}.`);
}
