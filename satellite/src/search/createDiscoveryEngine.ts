import type { ModelEndpoint } from '@orbital/contracts';
import { createDiscoverySearch } from './createDiscoverySearch.ts';
import { createEmbeddingClient, type EmbeddingClient } from './createEmbeddingClient.ts';
import { createRerankClient, type RerankClient } from './createRerankClient.ts';
import { createSemanticRanking, type SemanticRanking } from './createSemanticRanking.ts';
import { createToolVectors, type ToolVectors } from './createToolVectors.ts';
import { fuseByReciprocalRank } from './fuseByReciprocalRank.ts';
import { isOperatorQuery } from './isOperatorQuery.ts';
import type { SearchableTool, SearchResult, ToolSearchIndex } from './searchableTool.ts';
import { countDistinct, fusionLists, matchLists, phrasingDepth, searchPhrasings } from './searchPhrasings.ts';
import { toolEmbeddingText } from './toolEmbeddingText.ts';

/** The model endpoints discovery uses now, resolved from the settings held and the environment. */
export type DiscoveryModels = {
  embeddings?: ModelEndpoint;
  reranker?: ModelEndpoint;
  /** The most a discovery call waits for the endpoints, both together, before the word ranking answers. */
  timeoutMs: number;
};

/** How a discovery call was ranked, as its result and the metrics say. */
export type RankingReport = {
  /** `operators`: Fuse.js semantics; `words`: the word ranking; `words+meaning`: fused with embeddings. */
  method: 'operators' | 'words' | 'words+meaning';
  /** Present when an embeddings endpoint is configured: whether it served this call, and why not. */
  meaning?: ModelOutcome;
  /** Present when a reranker is configured and the call reached it. */
  reranker?: ModelOutcome;
};

/**
 * `used`; `timeout` (the time limit passed); `error` (refused, unreachable, or a bad answer); `skipped`
 * (it failed moments ago and is rested before the next try, so the call answers at once); `warming_up`
 * (no tool vector is computed yet).
 */
export type ModelOutcome = 'used' | 'timeout' | 'error' | 'skipped' | 'warming_up';

/** `total`: how many tools matched in all, of which `results` are the first `limit`. */
export type DiscoveryAnswer = { results: SearchResult[]; total: number; ranking: RankingReport };

export type TeamDiscovery = {
  setTools(tools: readonly SearchableTool[]): void;
  discover(phrasings: readonly string[], limit: number): Promise<DiscoveryAnswer>;
};

export type DiscoveryStats = {
  calls: Record<RankingReport['method'], number>;
  models: Record<'embeddings' | 'reranker', Record<ModelOutcome, number>>;
  vectors: { embedded: number; pending: number };
};

/** Weight of a meaning list in the fusion, a word list's being 1 (see satellite/README.md). */
export const defaultMeaningWeight = 0.2;

/** The reranker reorders this many of the first results. */
export const rerankDepth = 20;

/** After a failed call an endpoint rests this long before the next try, doubling up to a minute. */
const restBaseMs = 2000;
const restMaxMs = 60_000;

/**
 * Discovery for the whole satellite: one word ranking per team (`createDiscoverySearch`), and, when an
 * embeddings endpoint is configured, ranking by meaning fused with it by reciprocal rank, then optionally
 * a reranker over the first 20. Each call makes one embeddings request (every phrasing in it) and at most
 * one rerank request, both within `timeoutMs` in all; when an endpoint is slow, down or failed moments
 * ago, the call answers from the word ranking at once and says so in its report and the statistics. Tool
 * vectors are computed in the background whenever a tool list changes, cached by a hash of the text.
 */
export function createDiscoveryEngine(options: {
  models: () => DiscoveryModels;
  fetch?: typeof fetch;
  now?: () => number;
  onModelError?: (endpoint: 'embeddings' | 'reranker', error: unknown) => void;
  /** Weight of each meaning list against each word list in the fusion (the measured choice by default). */
  meaningWeight?: number;
}) {
  const meaningWeight = options.meaningWeight ?? defaultMeaningWeight;
  const now = options.now ?? Date.now;
  const fetchImpl = options.fetch ?? fetch;
  const stats: DiscoveryStats = {
    calls: { operators: 0, words: 0, 'words+meaning': 0 },
    models: {
      embeddings: { used: 0, timeout: 0, error: 0, skipped: 0, warming_up: 0 },
      reranker: { used: 0, timeout: 0, error: 0, skipped: 0, warming_up: 0 },
    },
    vectors: { embedded: 0, pending: 0 },
  };
  type Meaning = { key: string; client: EmbeddingClient; vectors: ToolVectors };
  let meaning: Meaning | undefined;
  let reranker: { key: string; client: RerankClient } | undefined;
  const rest = {
    embeddings: { until: 0, failures: 0 },
    reranker: { until: 0, failures: 0 },
  };

  const current = () => {
    const models = options.models();
    const embeddingsKey = models.embeddings ? JSON.stringify(models.embeddings) : '';
    if ((meaning?.key ?? '') !== embeddingsKey) {
      meaning?.vectors.close();
      meaning = undefined;
      rest.embeddings = { until: 0, failures: 0 };
      if (models.embeddings) {
        const client = createEmbeddingClient(models.embeddings, fetchImpl);
        const vectors = createToolVectors({
          client,
          onError: (error) => options.onModelError?.('embeddings', error),
        });
        meaning = { key: embeddingsKey, client, vectors };
      }
    }
    const rerankKey = models.reranker ? JSON.stringify(models.reranker) : '';
    if ((reranker?.key ?? '') !== rerankKey) {
      rest.reranker = { until: 0, failures: 0 };
      reranker = models.reranker
        ? { key: rerankKey, client: createRerankClient(models.reranker, fetchImpl) }
        : undefined;
    }
    return models;
  };

  const failed = (endpoint: 'embeddings' | 'reranker', error: unknown): ModelOutcome => {
    const state = rest[endpoint];
    state.failures++;
    state.until = now() + Math.min(restMaxMs, restBaseMs * 2 ** Math.min(state.failures - 1, 10));
    options.onModelError?.(endpoint, error);
    return error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')
      ? 'timeout'
      : 'error';
  };
  const succeeded = (endpoint: 'embeddings' | 'reranker') => {
    rest[endpoint] = { until: 0, failures: 0 };
  };
  const count = (report: RankingReport): RankingReport => {
    stats.calls[report.method]++;
    if (report.meaning) stats.models.embeddings[report.meaning]++;
    if (report.reranker) stats.models.reranker[report.reranker]++;
    return report;
  };

  return {
    createSearch(): TeamDiscovery {
      const words: ToolSearchIndex = createDiscoverySearch();
      let tools: readonly SearchableTool[] = [];
      let semantic: { for: Meaning; ranking: SemanticRanking } | undefined;
      const semanticOf = (active: Meaning) => {
        if (semantic?.for !== active) {
          semantic = { for: active, ranking: createSemanticRanking(active.vectors) };
          semantic.ranking.setTools(tools);
        }
        return semantic.ranking;
      };
      return {
        setTools(next) {
          tools = next;
          words.setTools(next);
          current();
          if (meaning) semanticOf(meaning).setTools(next);
        },
        async discover(phrasings, limit) {
          const models = current();
          const plain = phrasings.filter((phrasing) => phrasing.trim() && !isOperatorQuery(phrasing));
          const method = plain.length === 0 ? 'operators' : 'words';
          const active = meaning;
          if (!active || plain.length === 0) {
            return { ...searchPhrasings(words, phrasings, limit, tools.length), ranking: count({ method }) };
          }
          const depth = Math.max(limit, phrasingDepth);
          const allMatches = matchLists(words, phrasings, tools.length);
          const wordLists = fusionLists(allMatches, limit);
          const fallback = (outcome: ModelOutcome) => ({
            ...searchPhrasings(words, phrasings, limit, tools.length),
            ranking: count({ method: 'words', meaning: outcome }),
          });
          const ranking = semanticOf(active);
          if (!ranking.ready()) return fallback('warming_up');
          if (now() < rest.embeddings.until) return fallback('skipped');
          const deadline = AbortSignal.timeout(models.timeoutMs);
          const started = now();
          let queryVectors: Float32Array[];
          try {
            queryVectors = await active.client.embed(plain, deadline);
            succeeded('embeddings');
          } catch (error) {
            return fallback(failed('embeddings', error));
          }
          const meaningLists = queryVectors.map((vector) => ({
            results: ranking.rank(vector, depth),
            weight: meaningWeight,
          }));
          const fused = fuseByReciprocalRank([...wordLists, ...meaningLists], Math.max(limit, rerankDepth));
          const report: RankingReport = { method: 'words+meaning', meaning: 'used' };
          const results = reranker
            ? await rerankFirst(fused, plain.join('; '), models.timeoutMs - (now() - started), report)
            : fused;
          // Ranking by meaning orders every tool, so only the word matches count as found, with
          // whatever meaning alone brought into the answer.
          const returned = results.slice(0, limit);
          const total = countDistinct([...allMatches, { results: returned }]);
          return { results: returned, total, ranking: count(report) };
        },
      };
    },
    stats(): DiscoveryStats {
      const vectors = meaning?.vectors.stats();
      return { ...stats, vectors: { embedded: vectors?.embedded ?? 0, pending: vectors?.pending ?? 0 } };
    },
    /** Resolves once every tool vector asked for is computed (benchmarks and tests wait on it). */
    async vectorsReady(): Promise<void> {
      current();
      await meaning?.vectors.idle();
    },
    close() {
      meaning?.vectors.close();
    },
  };

  /**
   * The first `rerankDepth` results reordered by the reranker's scores (the rest keep their places), or
   * left as they are when it fails or the time left runs out. Scores stay in ranked order.
   */
  async function rerankFirst(
    results: SearchResult[],
    query: string,
    timeLeftMs: number,
    report: RankingReport,
  ): Promise<SearchResult[]> {
    const active = reranker;
    if (!active) return results;
    if (now() < rest.reranker.until) {
      report.reranker = 'skipped';
      return results;
    }
    if (timeLeftMs <= 0) {
      report.reranker = 'timeout';
      return results;
    }
    const head = results.slice(0, rerankDepth);
    try {
      const scores = await active.client.rerank(
        query,
        head.map((result) => toolEmbeddingText(result.tool)),
        AbortSignal.timeout(timeLeftMs),
      );
      succeeded('reranker');
      report.reranker = 'used';
      const order = head.map((result, i) => ({ tool: result.tool, score: scores[i] as number, i }));
      order.sort((a, b) => b.score - a.score || a.i - b.i);
      // The head keeps its own scores, handed out in the new order, so scores stay sorted.
      return [
        ...order.map((entry, i) => ({ tool: entry.tool, score: (head[i] as SearchResult).score })),
        ...results.slice(rerankDepth),
      ];
    } catch (error) {
      report.reranker = failed('reranker', error);
      return results;
    }
  }
}

export type DiscoveryEngine = ReturnType<typeof createDiscoveryEngine>;
