/**
 * Plain-word ranking on our own tuning set only (never the golden set), for the parameters given as
 * JSON overrides on the command line: `node bench/discovery/tuneDiscovery.ts '{"coverageExponent":1}'`.
 */
import {
  createPlainToolSearch,
  defaultPlainRankingParameters,
  type PlainRankingParameters,
} from '../../satellite/src/search/createPlainToolSearch.ts';
import { loadTuningSet } from './loadTuningSet.ts';
import { retrievalMetrics } from './retrievalMetrics.ts';

const { tools, requests, paraphrases } = await loadTuningSet();
const variants = process.argv.slice(2).map((arg) => JSON.parse(arg) as Partial<PlainRankingParameters>);
if (variants.length === 0) variants.push({});
const verbose = process.env.VERBOSE === '1';
for (const overrides of variants) {
  const parameters = deepMerge(defaultPlainRankingParameters, overrides);
  const search = createPlainToolSearch(parameters);
  search.setTools(tools);
  const rank = (q: string) => search.search(q, 10).map((r) => r.tool.tool_path);
  const m = retrievalMetrics(requests, rank);
  const p = retrievalMetrics(paraphrases, rank);
  console.log(
    `${JSON.stringify(overrides)}  all: R@1 ${m.recallAt[1].toFixed(3)} R@3 ${m.recallAt[3].toFixed(3)} R@10 ${m.recallAt[10].toFixed(3)} MRR ${m.mrr.toFixed(3)} nDCG@10 ${m.ndcgAt10.toFixed(3)} | paraphrases: R@3 ${p.recallAt[3].toFixed(3)} MRR ${p.mrr.toFixed(3)}  (${tools.length} tools, ${requests.length} requests)`,
  );
  if (verbose)
    for (const miss of (process.env.VERBOSE_ALL ? m : p).missesAt3)
      console.log(`   miss: ${miss.query} -> ${miss.got.join(', ')}`);
}

function deepMerge<T>(base: T, overrides: unknown): T {
  if (typeof overrides !== 'object' || overrides === null) return base;
  const merged: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(overrides)) {
    merged[key] =
      typeof value === 'object' && value !== null && !Array.isArray(value) ? deepMerge(merged[key], value) : value;
  }
  return merged as T;
}
