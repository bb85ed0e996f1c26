import { type SatelliteDiscoverySettings, satelliteDiscoverySettings } from '@orbital/contracts';

const endpointKeys = [
  [
    'embeddings',
    { url: 'discovery.embeddings_url', model: 'discovery.embeddings_model', key: 'discovery.embeddings_api_key' },
  ],
  ['reranker', { url: 'discovery.reranker_url', model: 'discovery.reranker_model', key: 'discovery.reranker_api_key' }],
] as const;

/**
 * The `discovery.*` settings (their group's plaintext values, by full key) as the
 * configuration carries them: an endpoint only with both its URL and its model, its key only when
 * `withKeys` (global satellites; never a team satellite or a person viewing the configuration). A value
 * that does not fit (a time limit out of range, a URL that is not http) is left out and named in
 * `dropped`, so one bad setting never makes a satellite refuse the rest.
 */
export function discoverySettingsOf(
  values: Record<string, string>,
  withKeys: boolean,
): { settings: SatelliteDiscoverySettings; dropped: string[] } {
  const dropped: string[] = [];
  const settings: SatelliteDiscoverySettings = {};
  for (const [part, keys] of endpointKeys) {
    const url = values[keys.url]?.trim();
    const model = values[keys.model]?.trim();
    const key = values[keys.key]?.trim();
    if (!url) continue;
    const endpoint = { url, model: model ?? '', ...(withKeys && key ? { api_key: key } : {}) };
    const parsed = satelliteDiscoverySettings.shape[part].safeParse(endpoint);
    if (parsed.success && parsed.data) settings[part] = parsed.data;
    else dropped.push(model ? keys.url : keys.model);
  }
  const timeout = values['discovery.model_timeout_ms']?.trim();
  if (timeout) {
    const parsed = satelliteDiscoverySettings.shape.model_timeout_ms.safeParse(Number(timeout));
    if (parsed.success && parsed.data !== undefined) settings.model_timeout_ms = parsed.data;
    else dropped.push('discovery.model_timeout_ms');
  }
  return { settings, dropped };
}
