import type { SearchableTool, SearchResult } from './searchableTool.ts';

/** The usual constant of reciprocal rank fusion: a list's first places differ little from its tenth. */
export const reciprocalRankK = 60;

/**
 * Reciprocal rank fusion: each tool scores the sum, over the ranked lists that hold it, of
 * `weight / (k + rank)`, so a tool several lists rank well rises above one a single list puts first,
 * and no list's own score scale matters. Ties keep the order in which tools were first met (the
 * earlier lists first). The reported score is `1 - fused / attainable` in [0, 1], lower is closer, where
 * `attainable` is what a tool ranked first by every list would get.
 */
export function fuseByReciprocalRank(
  lists: ReadonlyArray<{ results: readonly SearchResult[]; weight?: number }>,
  limit: number,
  k = reciprocalRankK,
): SearchResult[] {
  const fused = new Map<SearchableTool, { score: number; order: number }>();
  let attainable = 0;
  for (const { results, weight = 1 } of lists) {
    attainable += weight / (k + 1);
    results.forEach((result, rank) => {
      const entry = fused.get(result.tool);
      const share = weight / (k + rank + 1);
      if (entry) entry.score += share;
      else fused.set(result.tool, { score: share, order: fused.size });
    });
  }
  if (attainable === 0) return [];
  return [...fused]
    .sort(([, a], [, b]) => b.score - a.score || a.order - b.order)
    .slice(0, Math.max(0, limit))
    .map(([tool, { score }]) => ({ tool, score: Math.min(1, Math.max(0, 1 - score / attainable)) }));
}
