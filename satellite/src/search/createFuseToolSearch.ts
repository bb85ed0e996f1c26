import Fuse from 'fuse.js';
import type { SearchableTool, SearchResult, ToolSearchIndex } from './searchableTool.ts';
import { toolSearchFuseOptions } from './toolSearchFuseOptions.ts';

/**
 * The reference discovery search: plain Fuse.js, the index built from the current tool list on every
 * search, so it always sees the current tools. It is the yardstick `createToolSearchIndex` must equal exactly.
 *
 * A blank query is where Fuse.js returns the first `limit` tools in list order and no score; they are
 * reported with score 1 (no match evidence) so the result shape stays the same.
 */
export function createFuseToolSearch(): ToolSearchIndex {
  let tools: readonly SearchableTool[] = [];
  return {
    setTools(next) {
      tools = next;
    },
    search(query, limit): SearchResult[] {
      const fuse = new Fuse(tools, toolSearchFuseOptions);
      return fuse.search(query, { limit }).map((result) => ({ tool: result.item, score: result.score ?? 1 }));
    },
  };
}
