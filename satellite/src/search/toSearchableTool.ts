import type { CachedTool } from '../runtime/createServerRuntime.ts';
import { serverTextsOf } from '../runtime/createToolCatalogue.ts';
import type { SearchableTool } from './searchableTool.ts';

/** What discovery searches and returns of one cached tool. */
export function toSearchableTool(tool: CachedTool): SearchableTool {
  return {
    tool_path: tool.tool_path,
    name: tool.tool_name,
    description: tool.description,
    server_slug: tool.server_slug,
    server_name: tool.server_name,
    ...serverTextsOf(tool),
    transport: tool.transport,
    input_schema: tool.input_schema,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}
