import { loadConfig } from '@orbital/config';
import type { ServerConfiguration } from '@orbital/contracts';
import { createSatelliteApp, type SatelliteApp } from '../src/app.ts';
import { satelliteEnv } from '../src/config.ts';
import { createRecordingEventSink } from '../src/events/createRecordingEventSink.ts';
import { silentLogger } from './helpers.ts';

/**
 * A standalone, unauthenticated satellite serving `servers`, started and listening on a free port of
 * 127.0.0.1; `env` overrides its environment (idle timeouts and health checks are off by default).
 */
export async function startTestSatellite(options: {
  servers: ServerConfiguration[];
  env?: Record<string, string>;
  now?: () => number;
}): Promise<{ satellite: SatelliteApp; url: URL; events: ReturnType<typeof createRecordingEventSink> }> {
  const events = createRecordingEventSink();
  const satellite = createSatelliteApp({
    config: loadConfig(satelliteEnv, {
      LOG_LEVEL: 'silent',
      SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true',
      PROCESS_IDLE_TIMEOUT_MS: '0',
      REMOTE_HEALTH_INTERVAL_MS: '0',
      ...options.env,
    }),
    servers: options.servers,
    events,
    logger: silentLogger,
    ...(options.now ? { now: options.now } : {}),
  });
  await satellite.start();
  const url = new URL('/mcp', await satellite.app.listen({ port: 0, host: '127.0.0.1' }));
  return { satellite, url, events };
}
