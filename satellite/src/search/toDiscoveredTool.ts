import type { SearchResult } from './searchableTool.ts';

/** One result of discover_mcp_tools as the client receives it. */
export type DiscoveredTool = {
  tool_path: string;
  description: string;
  server_name: string;
  transport: string;
  /** In [0, 1], lower is closer (Fuse's score for operator queries, the ranking's for plain words). */
  relevance_score: number;
  /** The tool's input schema as its server reports it, so an agent can call it right the first time. */
  input_schema?: Record<string, unknown>;
  /** The tool's annotations (read-only, destructive, idempotent, open-world hints), when declared. */
  annotations?: Record<string, unknown>;
};

/**
 * A search result as discover_mcp_tools returns it: five fields every client reads (tool_path,
 * description, server_name, transport, relevance_score), plus the input schema and annotations unless
 * `includeSchemas` is false, which gives the five alone.
 */
export function toDiscoveredTool(result: SearchResult, includeSchemas: boolean): DiscoveredTool {
  const { tool } = result;
  const discovered: DiscoveredTool = {
    tool_path: tool.tool_path,
    description: tool.description,
    server_name: tool.server_name,
    transport: tool.transport,
    relevance_score: result.score,
  };
  if (!includeSchemas) return discovered;
  if (tool.input_schema) discovered.input_schema = tool.input_schema;
  if (tool.annotations && Object.keys(tool.annotations).length > 0) discovered.annotations = tool.annotations;
  return discovered;
}
