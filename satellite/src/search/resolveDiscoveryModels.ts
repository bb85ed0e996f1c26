import type { ModelEndpoint, SatelliteDiscoverySettings } from '@orbital/contracts';
import type { SatelliteEnv } from '../config.ts';
import type { DiscoveryModels } from './createDiscoveryEngine.ts';

type ModelEnv = Pick<
  SatelliteEnv,
  | 'SATELLITE_EMBEDDINGS_URL'
  | 'SATELLITE_EMBEDDINGS_MODEL'
  | 'SATELLITE_EMBEDDINGS_API_KEY'
  | 'SATELLITE_RERANKER_URL'
  | 'SATELLITE_RERANKER_MODEL'
  | 'SATELLITE_RERANKER_API_KEY'
  | 'SATELLITE_DISCOVERY_MODEL_TIMEOUT_MS'
>;

/**
 * The endpoints discovery uses: those the `discovery` settings name (sent by the backend, or in the
 * standalone file), else the satellite's environment; the settings' time limit, else the environment's.
 * An endpoint from the settings without a key takes the environment's key for it: a team satellite is
 * sent no platform keys, so its operator gives their own.
 */
export function resolveDiscoveryModels(
  settings: SatelliteDiscoverySettings | undefined,
  env: ModelEnv,
): DiscoveryModels {
  const pick = (
    held: ModelEndpoint | undefined,
    url: string | undefined,
    model: string | undefined,
    key: string | undefined,
  ): ModelEndpoint | undefined => {
    if (held) return held.api_key || !key ? held : { ...held, api_key: key };
    if (!url || !model) return undefined;
    return { url, model, ...(key ? { api_key: key } : {}) };
  };
  const embeddings = pick(
    settings?.embeddings,
    env.SATELLITE_EMBEDDINGS_URL,
    env.SATELLITE_EMBEDDINGS_MODEL,
    env.SATELLITE_EMBEDDINGS_API_KEY,
  );
  const reranker = pick(
    settings?.reranker,
    env.SATELLITE_RERANKER_URL,
    env.SATELLITE_RERANKER_MODEL,
    env.SATELLITE_RERANKER_API_KEY,
  );
  return {
    ...(embeddings ? { embeddings } : {}),
    ...(reranker ? { reranker } : {}),
    timeoutMs: settings?.model_timeout_ms ?? env.SATELLITE_DISCOVERY_MODEL_TIMEOUT_MS,
  };
}
