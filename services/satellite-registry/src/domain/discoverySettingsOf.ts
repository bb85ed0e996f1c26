import { type SatelliteDiscoverySettings, satelliteDiscoverySettings } from '@orbital/contracts';

/**
 * The `discovery.*` settings (their group's plaintext values, keys without the prefix) as the
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
  for (const part of ['embeddings', 'reranker'] as const) {
    const url = values[`${part}_url`]?.trim();
    const model = values[`${part}_model`]?.trim();
    const key = values[`${part}_api_key`]?.trim();
    if (!url) continue;
    const endpoint = { url, model: model ?? '', ...(withKeys && key ? { api_key: key } : {}) };
    const parsed = satelliteDiscoverySettings.shape[part].safeParse(endpoint);
    if (parsed.success && parsed.data) settings[part] = parsed.data;
    else dropped.push(`discovery.${part}_${model ? 'url' : 'model'}`);
  }
  const timeout = values.model_timeout_ms?.trim();
  if (timeout) {
    const parsed = satelliteDiscoverySettings.shape.model_timeout_ms.safeParse(Number(timeout));
    if (parsed.success && parsed.data !== undefined) settings.model_timeout_ms = parsed.data;
    else dropped.push('discovery.model_timeout_ms');
  }
  return { settings, dropped };
}
