import { fuseByReciprocalRank } from './fuseByReciprocalRank.ts';
import type { SearchResult, ToolSearchIndex } from './searchableTool.ts';

/** How deep each phrasing's list goes into the fusion: a tool another phrasing ranks 40th still counts. */
export const phrasingDepth = 50;

/** The first `limit` results of a discovery, and how many tools matched in all (`total_found`). */
export type PhrasingMatches = { results: SearchResult[]; total: number };

/**
 * Each phrasing's full list of matches: every match is needed to count them, and counting is what
 * `total_found` promises (not the number returned).
 */
export function matchLists(search: ToolSearchIndex, phrasings: readonly string[], toolCount: number) {
  return phrasings.map((phrasing) => ({ results: search.search(phrasing, Math.max(toolCount, 1)) }));
}

/** Distinct tools in any of the lists. */
export function countDistinct(lists: ReadonlyArray<{ results: readonly SearchResult[] }>): number {
  const [only] = lists;
  if (lists.length === 1 && only) return only.results.length;
  const paths = new Set<string>();
  for (const list of lists) for (const result of list.results) paths.add(result.tool.tool_path);
  return paths.size;
}

/** Each list cut to the depth the fusion ranks by (counting needs them whole, ranking does not). */
export function fusionLists(lists: ReadonlyArray<{ results: SearchResult[] }>, limit: number) {
  const depth = Math.max(limit, phrasingDepth);
  return lists.map((list) => ({ results: list.results.slice(0, depth) }));
}

/**
 * Discovery for several phrasings of one need (`query` and `queries[]`): each is searched on its own,
 * as its kind asks (operators with Fuse's semantics, plain words with the word ranking), and the lists
 * are fused by reciprocal rank. One phrasing alone is answered exactly as `search` answers it, so an
 * operator query keeps Fuse.js's own results and scores.
 */
export function searchPhrasings(
  search: ToolSearchIndex,
  phrasings: readonly string[],
  limit: number,
  toolCount: number,
): PhrasingMatches {
  const lists = matchLists(search, phrasings, toolCount);
  const total = countDistinct(lists);
  const [only] = lists;
  if (lists.length === 1 && only) return { results: only.results.slice(0, limit), total };
  return { results: fuseByReciprocalRank(fusionLists(lists, limit), limit), total };
}
