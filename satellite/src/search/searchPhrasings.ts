import { fuseByReciprocalRank } from './fuseByReciprocalRank.ts';
import type { SearchResult, ToolSearchIndex } from './searchableTool.ts';

/** How deep each phrasing's list goes into the fusion: a tool another phrasing ranks 40th still counts. */
export const phrasingDepth = 50;

/**
 * Discovery for several phrasings of one need (`query` and `queries[]`): each is searched on its own,
 * as its kind asks (operators with Fuse's semantics, plain words with the word ranking), and the lists
 * are fused by reciprocal rank. One phrasing alone is answered exactly as `search` answers it, so an
 * operator query keeps Fuse.js's own results and scores.
 */
export function searchPhrasings(search: ToolSearchIndex, phrasings: readonly string[], limit: number): SearchResult[] {
  const [only] = phrasings;
  if (phrasings.length === 1 && only !== undefined) return search.search(only, limit);
  const depth = Math.max(limit, phrasingDepth);
  return fuseByReciprocalRank(
    phrasings.map((phrasing) => ({ results: search.search(phrasing, depth) })),
    limit,
  );
}
