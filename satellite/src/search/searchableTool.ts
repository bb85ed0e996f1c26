/**
 * What discovery searches: one tool of one server. The gateway builds these from the unified tool
 * cache (only servers whose status is `online`); the search index never sees anything else.
 */
export type SearchableTool = {
  /** External path `serverName:toolName`, as clients pass it to execute_mcp_tool. */
  tool_path: string;
  /** Tool name as the server reports it (weight 0.4). */
  name: string;
  /** Tool description (weight 0.35); a word anywhere in it matches. */
  description: string;
  /** The server's slug (weight 0.25). */
  server_slug: string;
  server_name: string;
  /** The catalogue's name and description of the server (its template's); the word ranking reads them. */
  server_title?: string;
  server_description?: string;
  transport: 'stdio' | 'http' | 'sse';
  /** The tool's input schema as its server reports it; plain-word discovery reads its properties. */
  input_schema?: Record<string, unknown>;
  /** The tool's annotations (read-only, destructive, ...) when its server declares them. */
  annotations?: Record<string, unknown>;
};

export type SearchResult = {
  tool: SearchableTool;
  /** Fuse.js score: 0 is a perfect match; lower is closer. */
  score: number;
};

/**
 * Discovery search: Fuse.js semantics over name 0.4,
 * description 0.35, server slug 0.25, threshold 0.3, minimum match 2 characters, extended search,
 * full text, lower score first, at most `limit`. `setTools` is called when the tool set changes
 * (cheap when it did not); `search` must return exactly what plain Fuse.js returns with those options.
 */
export type ToolSearchIndex = {
  setTools(tools: readonly SearchableTool[]): void;
  search(query: string, limit: number): SearchResult[];
};
