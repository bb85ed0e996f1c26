import type { LabelledQuery } from './loadRetrievalData.ts';

export type RetrievalMetrics = {
  recallAt: Record<1 | 3 | 5 | 10, number>;
  mrr: number;
  ndcgAt10: number;
  /** Queries whose first relevant tool is not in the top 3, for reading what goes wrong. */
  missesAt3: Array<{ query: string; got: string[] }>;
};

const cutoffs = [1, 3, 5, 10] as const;

/**
 * The metrics as the field computes them: Recall@k = share of a query's relevant tools in the first k
 * results, averaged over queries; MRR = mean of 1 / rank of the first relevant tool (0 when none is
 * returned); nDCG@10 with the graded labels (2 meant, 1 acceptable) as gains. A label of relevance 0
 * marks a hard negative (a look-alike tool that is wrong for the request): it is not relevant, so it
 * neither counts as found nor enlarges the set a recall is taken of.
 */
export function retrievalMetrics(
  queries: readonly LabelledQuery[],
  rank: (query: string) => readonly string[],
): RetrievalMetrics {
  const recall = { 1: 0, 3: 0, 5: 0, 10: 0 };
  let reciprocal = 0;
  let ndcg = 0;
  const missesAt3: RetrievalMetrics['missesAt3'] = [];
  for (const { query, labels: graded } of queries) {
    const labels = new Map([...graded].filter(([, gain]) => gain > 0));
    const ranked = rank(query);
    for (const k of cutoffs) {
      const found = ranked.slice(0, k).filter((id) => labels.has(id)).length;
      recall[k] += found / labels.size;
    }
    const first = ranked.findIndex((id) => labels.has(id));
    if (first >= 0) reciprocal += 1 / (first + 1);
    if (first < 0 || first >= 3) missesAt3.push({ query, got: ranked.slice(0, 3) });
    let dcg = 0;
    ranked.slice(0, 10).forEach((id, i) => {
      dcg += (labels.get(id) ?? 0) / Math.log2(i + 2);
    });
    let ideal = 0;
    [...labels.values()]
      .sort((a, b) => b - a)
      .slice(0, 10)
      .forEach((gain, i) => {
        ideal += gain / Math.log2(i + 2);
      });
    ndcg += ideal > 0 ? dcg / ideal : 0;
  }
  const n = queries.length || 1;
  return {
    recallAt: { 1: recall[1] / n, 3: recall[3] / n, 5: recall[5] / n, 10: recall[10] / n },
    mrr: reciprocal / n,
    ndcgAt10: ndcg / n,
    missesAt3,
  };
}
