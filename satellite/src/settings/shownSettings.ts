import type { ModelEndpoint, SatelliteGlobalSettings } from '@orbital/contracts';

type ShownEndpoint = Omit<ModelEndpoint, 'api_key'> & { api_key_set: boolean };

/**
 * The settings as `GET /` and the logs show them: every model endpoint's key replaced by whether one is
 * set, so neither reveals a secret.
 */
export function shownSettings(settings: SatelliteGlobalSettings) {
  const show = (endpoint: ModelEndpoint | undefined): ShownEndpoint | undefined => {
    if (!endpoint) return undefined;
    const { api_key: key, ...rest } = endpoint;
    return { ...rest, api_key_set: key !== undefined };
  };
  const { discovery, ...rest } = settings;
  if (!discovery) return rest;
  const embeddings = show(discovery.embeddings);
  const reranker = show(discovery.reranker);
  return {
    ...rest,
    discovery: {
      ...(embeddings ? { embeddings } : {}),
      ...(reranker ? { reranker } : {}),
      ...(discovery.model_timeout_ms !== undefined ? { model_timeout_ms: discovery.model_timeout_ms } : {}),
    },
  };
}
