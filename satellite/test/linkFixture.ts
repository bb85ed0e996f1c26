import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from '@orbital/logger';
import { captureLog } from '@orbital/testing';
import { createBackendClient } from '../src/backend/createBackendClient.ts';
import { createCredentialsStore, type SatelliteCredentials } from '../src/backend/createCredentialsStore.ts';
import { createSatelliteApi } from '../src/backend/createSatelliteApi.ts';
import { createSatelliteIdentity } from '../src/backend/createSatelliteIdentity.ts';
import type { Scheduler } from '../src/backend/scheduler.ts';

/** A logger whose lines the test can read back. */
export function createCapturedLogger(): { logger: Logger; lines(): Array<Record<string, unknown>>; text(): string } {
  const log = captureLog();
  return {
    logger: createLogger({ name: 'satellite-link-test', level: 'debug', destination: log.stream }),
    text: log.text,
    lines: log.lines,
  };
}

export const storedCredentials = (backendUrl: string): SatelliteCredentials => ({
  satellite_id: '7d1b3a38-7c7f-4c55-9a0f-3f1f5b8c2a11',
  api_key: 'sk_0123456789abcdef01234567.stored-secret-stored-secret-stored-secret0',
  backend_url: backendUrl,
  satellite_type: 'global',
  team_id: null,
  registered_at: '2026-01-01T00:00:00.000Z',
});

export async function tempStateDir(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'orbital-satellite-state-')), 'state');
}

/** Client, credentials store, identity and API as the link builds them, against `backendUrl`. */
export async function createLinkParts(options: {
  backendUrl: string;
  scheduler: Scheduler;
  logger: Logger;
  stateDir?: string;
  token?: string;
  credentials?: SatelliteCredentials | null;
  timeoutMs?: number;
}) {
  const stateDir = options.stateDir ?? (await tempStateDir());
  const store = createCredentialsStore({ dir: stateDir });
  const credentials = options.credentials === undefined ? storedCredentials(options.backendUrl) : options.credentials;
  if (credentials) await store.save(credentials);
  const client = createBackendClient({
    baseUrl: options.backendUrl,
    scheduler: options.scheduler,
    timeoutMs: options.timeoutMs ?? 10000,
  });
  const identity = createSatelliteIdentity({
    client,
    store,
    registrationToken: options.token,
    details: () => ({ name: 'test-satellite', capabilities: ['stdio', 'http', 'sse'], system_info: { os: 'linux' } }),
    scheduler: options.scheduler,
    logger: options.logger,
  });
  const api = createSatelliteApi({ client, identity });
  return { stateDir, store, client, identity, api };
}
