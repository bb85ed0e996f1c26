import MiniSearch from 'minisearch';
import type { SearchableTool, SearchResult, ToolSearchIndex } from '../../satellite/src/search/searchableTool.ts';

/**
 * The baseline "plain BM25" of the retrieval benchmark: minisearch's BM25 with its own defaults over
 * the tool name and description, words as its default tokenizer splits them, lowercased, no stemming,
 * no field boosts, no related words, no typo tolerance. Scores are minisearch's, highest first; the
 * benchmark reads only the order.
 */
export function createPlainBm25Search(): ToolSearchIndex {
  let tools: readonly SearchableTool[] = [];
  let index = new MiniSearch<{ id: number; name: string; description: string }>({ fields: ['name', 'description'] });
  return {
    setTools(next) {
      tools = next;
      index = new MiniSearch({ fields: ['name', 'description'] });
      index.addAll(next.map((tool, id) => ({ id, name: tool.name, description: tool.description })));
    },
    search(query, limit): SearchResult[] {
      return index
        .search(query)
        .slice(0, limit)
        .map((result) => ({ tool: tools[result.id as number] as SearchableTool, score: result.score }));
    },
  };
}
