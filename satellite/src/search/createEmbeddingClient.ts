import type { ModelEndpoint } from '@orbital/contracts';
import { createModelEndpointPost } from './createModelEndpointPost.ts';

export type EmbeddingClient = {
  /** One unit-length vector per text, in order; rejects with a message fit for logs and metrics. */
  embed(texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]>;
};

/**
 * A client of an OpenAI-compatible `POST /embeddings` (Ollama, TEI, vLLM, LiteLLM, OpenAI itself, or the
 * project's own `services/embeddings`). Vectors come back scaled to unit length, so a dot product is
 * their cosine similarity. Failures never carry the API key or the answer's body, only what went wrong.
 */
export function createEmbeddingClient(endpoint: ModelEndpoint, fetchImpl: typeof fetch = fetch): EmbeddingClient {
  const post = createModelEndpointPost(endpoint, 'embeddings', fetchImpl);
  return {
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const body = (await post({ input: texts, encoding_format: 'float' }, signal)) as {
        data?: Array<{ index?: number; embedding?: unknown }>;
      };
      const data = Array.isArray(body?.data) ? body.data : [];
      if (data.length !== texts.length) {
        throw new Error(`the embeddings endpoint answered ${data.length} vectors for ${texts.length} texts`);
      }
      const vectors: Float32Array[] = new Array(texts.length);
      let dimensions = -1;
      data.forEach((item, position) => {
        const index = typeof item.index === 'number' ? item.index : position;
        const values = item.embedding;
        if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'number')) {
          throw new Error('the embeddings endpoint answered something other than arrays of numbers');
        }
        if (dimensions >= 0 && values.length !== dimensions) {
          throw new Error('the embeddings endpoint answered vectors of different lengths');
        }
        dimensions = values.length;
        if (index < 0 || index >= texts.length || vectors[index]) {
          throw new Error('the embeddings endpoint answered vectors out of order');
        }
        vectors[index] = toUnitLength(values as number[]);
      });
      return vectors;
    },
  };
}

function toUnitLength(values: readonly number[]): Float32Array {
  let norm = 0;
  for (const value of values) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return Float32Array.from(values, (value) => value * scale);
}
