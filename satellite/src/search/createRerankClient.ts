import type { ModelEndpoint } from '@orbital/contracts';
import { createModelEndpointPost } from './createModelEndpointPost.ts';

export type RerankClient = {
  /** A relevance score per document, in the documents' order; higher is closer. */
  rerank(query: string, documents: readonly string[], signal: AbortSignal): Promise<number[]>;
};

/**
 * A client of a `POST /rerank` endpoint. It sends the shape Cohere, Jina, vLLM and LiteLLM take
 * (`{model, query, documents, top_n}`) and reads either answer in use: `{results: [{index,
 * relevance_score}]}` or TEI's bare `[{index, score}]`. A document the answer leaves out scores below
 * every document it ranks.
 */
export function createRerankClient(endpoint: ModelEndpoint, fetchImpl: typeof fetch = fetch): RerankClient {
  const post = createModelEndpointPost(endpoint, 'rerank', fetchImpl);
  return {
    async rerank(query, documents, signal) {
      if (documents.length === 0) return [];
      const body = await post({ query, documents, top_n: documents.length }, signal);
      const results = Array.isArray(body) ? body : (body as { results?: unknown } | null)?.results;
      if (!Array.isArray(results)) throw new Error('the rerank endpoint answered no results');
      const scores = new Array<number>(documents.length).fill(Number.NEGATIVE_INFINITY);
      for (const result of results as Array<{ index?: unknown; relevance_score?: unknown; score?: unknown }>) {
        const score = typeof result.relevance_score === 'number' ? result.relevance_score : result.score;
        if (typeof result.index !== 'number' || typeof score !== 'number' || !(result.index in scores)) {
          throw new Error('the rerank endpoint answered results without an index and a score');
        }
        scores[result.index] = score;
      }
      return scores;
    },
  };
}
