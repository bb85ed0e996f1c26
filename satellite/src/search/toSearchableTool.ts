import type { CachedTool } from '../runtime/createServerRuntime.ts';
import type { SearchableTool } from './searchableTool.ts';

/** What discovery searches and returns of one cached tool. */
export function toSearchableTool(tool: CachedTool): SearchableTool {
  return {
    tool_path: tool.tool_path,
    name: tool.tool_name,
    description: tool.description,
    server_slug: tool.server_slug,
    server_name: tool.server_name,
    ...(tool.server_title ? { server_title: tool.server_title } : {}),
    ...(tool.server_description ? { server_description: tool.server_description } : {}),
    transport: tool.transport,
    input_schema: tool.input_schema,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}
