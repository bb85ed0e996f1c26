import { createDiscoveryEngine, type TeamDiscovery } from '../../satellite/src/search/createDiscoveryEngine.ts';
import { createDiscoverySearch } from '../../satellite/src/search/createDiscoverySearch.ts';
import { createEmbeddingClient } from '../../satellite/src/search/createEmbeddingClient.ts';
import { createSemanticRanking } from '../../satellite/src/search/createSemanticRanking.ts';
import { createToolVectors } from '../../satellite/src/search/createToolVectors.ts';
import { fuseByReciprocalRank } from '../../satellite/src/search/fuseByReciprocalRank.ts';
import type { SearchableTool, SearchResult } from '../../satellite/src/search/searchableTool.ts';
import type { LabelledQuery } from './loadRetrievalData.ts';
import { type RetrievalMetrics, retrievalMetrics } from './retrievalMetrics.ts';
import { threePhrasings } from './threePhrasings.ts';

export type ModelEndpointUnderTest = { url: string; model: string };

/** The model's time limit in the quality runs: long, so the figures say what the model adds, not how fast it is. */
const qualityTimeoutMs = 60_000;

/**
 * Quality of discovery as a satellite runs it (`createDiscoveryEngine`, the same code path as a
 * `discover_mcp_tools` call), over one tool set: the word ranking alone, with the embeddings endpoint,
 * and each with `queries[]` of three phrasings made by rule (`threePhrasings`). Every model call must
 * have been served by the endpoint; a call that fell back to the words is counted and printed.
 */
export async function measureDiscoveryRows(
  tools: readonly SearchableTool[],
  queries: readonly LabelledQuery[],
  endpoint: ModelEndpointUnderTest,
  limit: number,
): Promise<Array<{ label: string; metrics: RetrievalMetrics; fallbacks: number }>> {
  const words = createDiscoveryEngine({ models: () => ({ timeoutMs: qualityTimeoutMs }) });
  const withModel = createDiscoveryEngine({
    models: () => ({ embeddings: endpoint, timeoutMs: qualityTimeoutMs }),
  });
  const wordSearch = words.createSearch();
  const modelSearch = withModel.createSearch();
  wordSearch.setTools(tools);
  modelSearch.setTools(tools);
  await withModel.vectorsReady();
  const rows: Array<{ label: string; metrics: RetrievalMetrics; fallbacks: number }> = [];
  for (const [label, search, phrasingsOf, usesModel] of [
    ['word ranking', wordSearch, (q: string) => [q], false],
    ['word ranking + queries[] (3 phrasings)', wordSearch, threePhrasings, false],
    ['words + local model (USE lite)', modelSearch, (q: string) => [q], true],
    ['words + local model + queries[]', modelSearch, threePhrasings, true],
  ] as const) {
    const { metrics, fallbacks } = await rankAll(search, queries, phrasingsOf, limit, usesModel);
    rows.push({ label, metrics, fallbacks });
  }
  withModel.close();
  words.close();
  return rows;
}

async function rankAll(
  search: TeamDiscovery,
  queries: readonly LabelledQuery[],
  phrasingsOf: (query: string) => readonly string[],
  limit: number,
  usesModel: boolean,
) {
  const ranked = new Map<string, string[]>();
  let fallbacks = 0;
  for (const { query } of queries) {
    const answer = await search.discover(phrasingsOf(query), limit);
    if (usesModel && answer.ranking.meaning !== 'used') fallbacks++;
    ranked.set(
      query,
      answer.results.map((result) => result.tool.tool_path),
    );
  }
  return { metrics: retrievalMetrics(queries, (query) => ranked.get(query) ?? []), fallbacks };
}

/**
 * Other ways of using the same model, tried for the model target (the engine fuses by reciprocal rank
 * with the meaning list at 0.2): fusion with the meaning list weighing more, the model reordering only
 * the word ranking's first k, the model breaking only the word ranking's ties, and the model alone.
 * Built from the same parts as the engine (the endpoint's client, the tool vectors and their cosine
 * ranking, the word ranking), so only the way the lists are combined differs.
 */
export async function measureModelVariants(
  tools: readonly SearchableTool[],
  queries: readonly LabelledQuery[],
  endpoint: ModelEndpointUnderTest,
  limit: number,
): Promise<Array<{ label: string; metrics: RetrievalMetrics }>> {
  const client = createEmbeddingClient(endpoint);
  const vectors = createToolVectors({ client });
  const semantic = createSemanticRanking(vectors);
  semantic.setTools(tools);
  await vectors.idle();
  const words = createDiscoverySearch();
  words.setTools(tools);
  const depth = 50;
  const lists = new Map<
    string,
    { words: SearchResult[]; meaning: SearchResult[]; similarity: Map<SearchableTool, number> }
  >();
  for (const { query } of queries) {
    const [vector] = await client.embed([query], AbortSignal.timeout(qualityTimeoutMs));
    const meaning = semantic.rank(vector as Float32Array, tools.length);
    // The ranking's score is (1 - cosine) / 2; lower is closer.
    const similarity = new Map(meaning.map((result) => [result.tool, 1 - 2 * result.score]));
    lists.set(query, { words: words.search(query, depth), meaning: meaning.slice(0, depth), similarity });
  }
  vectors.close();
  const paths = (results: readonly SearchResult[]) => results.slice(0, limit).map((result) => result.tool.tool_path);
  const variant = (label: string, combine: (entry: NonNullable<ReturnType<typeof lists.get>>) => SearchResult[]) => ({
    label,
    metrics: retrievalMetrics(queries, (query) =>
      paths(combine(lists.get(query) as NonNullable<ReturnType<typeof lists.get>>)),
    ),
  });
  const rerankFirst = (k: number) => (entry: NonNullable<ReturnType<typeof lists.get>>) => {
    const head = entry.words.slice(0, k);
    const order = head
      .map((result, i) => ({ result, similarity: entry.similarity.get(result.tool) ?? -1, i }))
      .sort((a, b) => b.similarity - a.similarity || a.i - b.i)
      .map(({ result }) => result);
    return [...order, ...entry.words.slice(k)];
  };
  return [
    variant('fusion, meaning weight 0.2 (the engine)', (e) =>
      fuseByReciprocalRank([{ results: e.words }, { results: e.meaning, weight: 0.2 }], limit),
    ),
    variant('fusion, meaning weight 0.5', (e) =>
      fuseByReciprocalRank([{ results: e.words }, { results: e.meaning, weight: 0.5 }], limit),
    ),
    variant('fusion, meaning weight 1', (e) =>
      fuseByReciprocalRank([{ results: e.words }, { results: e.meaning, weight: 1 }], limit),
    ),
    variant('model reorders the words’ first 5', rerankFirst(5)),
    variant('model reorders the words’ first 10', rerankFirst(10)),
    variant('model breaks the words’ ties only', (e) =>
      e.words
        .map((result, i) => ({ result, similarity: e.similarity.get(result.tool) ?? -1, i }))
        .sort((a, b) => a.result.score - b.result.score || b.similarity - a.similarity || a.i - b.i)
        .map(({ result }) => result),
    ),
    variant('model alone (cosine)', (e) => e.meaning),
  ];
}

/**
 * Wall-clock time of whole discovery calls at one size, with the model (the endpoint's embedding of the
 * request included) and without, on the same tools and requests. The tools' vectors are computed first
 * through the endpoint, as a satellite does in the background when a list changes.
 */
export async function measureModelLatency(
  tools: readonly SearchableTool[],
  requests: readonly string[],
  endpoint: ModelEndpointUnderTest,
  limit: number,
  timeoutMs: number,
): Promise<{ embedMs: number; rows: Array<{ label: string; p50: number; p99: number; fallbacks: number }> }> {
  const words = createDiscoveryEngine({ models: () => ({ timeoutMs }) });
  const withModel = createDiscoveryEngine({ models: () => ({ embeddings: endpoint, timeoutMs }) });
  const wordSearch = words.createSearch();
  const modelSearch = withModel.createSearch();
  wordSearch.setTools(tools);
  const embedStart = performance.now();
  modelSearch.setTools(tools);
  await withModel.vectorsReady();
  const embedMs = performance.now() - embedStart;
  const rows: Array<{ label: string; p50: number; p99: number; fallbacks: number }> = [];
  for (const [label, search] of [
    ['word ranking', wordSearch],
    ['words + local model (endpoint included)', modelSearch],
  ] as const) {
    for (const request of requests.slice(0, 5)) await search.discover([request], limit);
    const times: number[] = [];
    let fallbacks = 0;
    for (const request of requests) {
      const start = performance.now();
      const answer = await search.discover([request], limit);
      times.push(performance.now() - start);
      if (search === modelSearch && answer.ranking.meaning !== 'used') fallbacks++;
    }
    times.sort((a, b) => a - b);
    const at = (fraction: number) =>
      times[Math.min(times.length - 1, Math.ceil(fraction * times.length) - 1)] ?? Number.NaN;
    rows.push({ label, p50: at(0.5), p99: at(0.99), fallbacks });
  }
  withModel.close();
  words.close();
  return { embedMs, rows };
}
