import Fuse, { type IFuseOptions } from 'fuse.js';
import type { SearchableTool, SearchResult, ToolSearchIndex } from './searchableTool.ts';

/** The spec's search options ("Meta-tool discover_mcp_tools"); `ignoreLocation` makes it full text. */
export const fuseToolSearchOptions: IFuseOptions<SearchableTool> = {
  keys: [
    { name: 'name', weight: 0.4 },
    { name: 'description', weight: 0.35 },
    { name: 'server_slug', weight: 0.25 },
  ],
  threshold: 0.3,
  minMatchCharLength: 2,
  useExtendedSearch: true,
  ignoreLocation: true,
  includeScore: true,
};

/**
 * The reference implementation of discovery search: plain Fuse.js with the spec's options, its index
 * rebuilt only when the tool list given to `setTools` is a different array. Faster indexes must
 * return what this returns.
 */
export function createFuseToolSearch(): ToolSearchIndex {
  let tools: readonly SearchableTool[] | undefined;
  let fuse = new Fuse<SearchableTool>([], fuseToolSearchOptions);
  return {
    setTools(next) {
      if (next === tools) return;
      tools = next;
      fuse = new Fuse([...next], fuseToolSearchOptions);
    },
    search(query, limit) {
      return fuse
        .search(query, { limit })
        .map((result): SearchResult => ({ tool: result.item, score: result.score ?? 0 }));
    },
  };
}
