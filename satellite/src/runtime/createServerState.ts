import type { Tool } from '@modelcontextprotocol/client';
import type { InstallationStatus, ServerConfiguration } from '@orbital/contracts';
import type { EventSink } from '../events/eventSink.ts';
import { estimateToolTokens } from './estimateTokens.ts';
import { serverRefOf } from './serverRefOf.ts';

type StatusReason = 'recovery' | 'process' | 'configuration';

/**
 * What stdio and remote servers share: the installation status (with `mcp.server.status_changed`
 * on each change) and the discovered tool list (with `mcp.tools.discovered` after each discovery
 * and `mcp.tools.updated` when a rediscovery finds the list changed).
 */
export function createServerState(options: { config: ServerConfiguration; events: EventSink; onChange: () => void }) {
  const { config, events } = options;
  const ref = serverRefOf(config);
  let status: InstallationStatus = 'provisioning';
  let tools: Tool[] = [];
  let discovered = false;
  let discovering: Promise<void> = Promise.resolve();

  const setStatus = (next: InstallationStatus, reason: StatusReason, message: string | null = null) => {
    if (next === status) return;
    const previous = status;
    status = next;
    events.emit('mcp.server.status_changed', {
      ...ref,
      status: next,
      previous_status: previous,
      status_message: message?.slice(0, 4000) ?? null,
      reason,
      changed_at: new Date().toISOString(),
    });
    options.onChange();
  };

  const applyTools = (next: Tool[]) => {
    const before = new Set(tools.map((t) => t.name));
    const after = new Set(next.map((t) => t.name));
    const wasDiscovered = discovered;
    tools = next;
    discovered = true;
    const counted = next.map((tool) => ({
      tool_name: tool.name,
      description: tool.description ?? '',
      input_schema: tool.inputSchema as Record<string, unknown>,
      token_count: estimateToolTokens(tool),
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
        ...ref,
        added_tools: added,
        removed_tools: removed,
        total_tools: next.length,
      });
    }
    options.onChange();
  };

  /** Runs `tools/list` (every page); discoveries of one server run one after another, never interleaved. */
  const discover = (listTools: () => Promise<Tool[]>): Promise<void> => {
    const run = async () => applyTools(await listTools());
    discovering = discovering.then(run, run);
    return discovering;
  };

  return {
    ref,
    status: () => status,
    tools: (): readonly Tool[] => tools,
    setStatus,
    discover,
  };
}

export type ServerState = ReturnType<typeof createServerState>;
