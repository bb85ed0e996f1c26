import type { BackendClient, BackendResult } from './createBackendClient.ts';
import type { SatelliteIdentity } from './createSatelliteIdentity.ts';

export type SatelliteApi = {
  /** `suffix` follows `/api/satellites/<own id>`; a 401 is handed to the identity before it is returned. */
  call<T = unknown>(
    method: 'GET' | 'POST',
    suffix: string,
    body?: unknown,
    signal?: AbortSignal,
    /** Longer than the client's default for a call the backend may hold open (a long poll). */
    timeoutMs?: number,
  ): Promise<BackendResult<T>>;
};

/** Calls on the satellite's own routes with its API key (a key reaches its own id only). */
export function createSatelliteApi(options: {
  client: BackendClient;
  identity: SatelliteIdentity;
  /** Told whether each call reached a working backend (the heartbeat's network status). */
  onOutcome?: (reachedBackend: boolean) => void;
}): SatelliteApi {
  return {
    async call<T>(method: 'GET' | 'POST', suffix: string, body?: unknown, signal?: AbortSignal, timeoutMs?: number) {
      const credentials = options.identity.current();
      if (!credentials) return { kind: 'network', message: 'not registered yet' } as BackendResult<T>;
      const result = await options.client.request<T>({
        method,
        path: `/api/satellites/${encodeURIComponent(credentials.satellite_id)}${suffix}`,
        authorization: `Bearer ${credentials.api_key}`,
        ...(body === undefined ? {} : { body }),
        ...(signal ? { signal } : {}),
        ...(timeoutMs ? { timeoutMs } : {}),
      });
      if (result.kind !== 'aborted') {
        options.onOutcome?.(result.kind === 'ok' || (result.kind === 'http' && result.status < 500));
      }
      if (result.kind === 'http' && result.status === 401) {
        await options.identity.handleUnauthorized(credentials.api_key);
      }
      return result;
    },
  };
}
