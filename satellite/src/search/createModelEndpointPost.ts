import type { ModelEndpoint } from '@orbital/contracts';
import { modelEndpointUrl } from './modelEndpointUrl.ts';

/**
 * How discovery's model clients call their endpoint: a JSON POST of the endpoint's model and the
 * operation's fields to `/embeddings` or `/rerank`, with the API key as a bearer token when there is
 * one, resolving with the parsed answer. A refusal rejects with its status only: never the key, never
 * the answer's body, which may echo what was sent.
 */
export function createModelEndpointPost(
  endpoint: ModelEndpoint,
  operation: 'embeddings' | 'rerank',
  fetchImpl: typeof fetch,
): (fields: Record<string, unknown>, signal: AbortSignal) => Promise<unknown> {
  const url = modelEndpointUrl(endpoint.url, operation);
  return async (fields, signal) => {
    const response = await fetchImpl(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(endpoint.api_key ? { authorization: `Bearer ${endpoint.api_key}` } : {}),
      },
      body: JSON.stringify({ model: endpoint.model, ...fields }),
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`the ${operation} endpoint answered HTTP ${response.status}`);
    }
    return response.json();
  };
}
