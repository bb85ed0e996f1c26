import type { SearchableTool } from '../searchableTool.ts';

/** A searchable tool for tests: path `server:name`, over stdio, with the input schema properties given. */
export function testTool(
  server: string,
  name: string,
  description: string,
  properties: Record<string, { description?: string }> = {},
): SearchableTool {
  return {
    tool_path: `${server}:${name}`,
    name,
    description,
    server_slug: server,
    server_name: server,
    transport: 'stdio',
    input_schema: { type: 'object', properties },
  };
}
