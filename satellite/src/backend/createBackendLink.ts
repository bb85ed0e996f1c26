import os from 'node:os';
import type { Logger } from '@orbital/logger';
import type { IntrospectionCredential } from '../auth/createIntrospectionVerifier.ts';
import type { SatelliteEnv } from '../config.ts';
import type { ServerRuntime } from '../runtime/createServerRuntime.ts';
import type { SettingsCache } from '../settings/createSettingsCache.ts';
import { createBackendClient } from './createBackendClient.ts';
import { createCommandExecutor } from './createCommandExecutor.ts';
import { createCommandPoller } from './createCommandPoller.ts';
import { createConfigSync } from './createConfigSync.ts';
import { createCredentialsStore } from './createCredentialsStore.ts';
import { createEventQueue } from './createEventQueue.ts';
import { createHeartbeat } from './createHeartbeat.ts';
import { createLinkHealth, createMetricsCollector } from './createMetricsCollector.ts';
import { createSatelliteApi } from './createSatelliteApi.ts';
import { createSatelliteIdentity } from './createSatelliteIdentity.ts';
import { createUpstreamTokens } from './createUpstreamTokens.ts';
import { readRegistrationToken } from './readRegistrationToken.ts';
import { type Scheduler, systemScheduler } from './scheduler.ts';
import { createEventBatchSender } from './sendEventBatch.ts';

export type BackendLinkConfig = Pick<
  SatelliteEnv,
  | 'BACKEND_URL'
  | 'SATELLITE_REGISTRATION_TOKEN'
  | 'SATELLITE_REGISTRATION_TOKEN_FILE'
  | 'SATELLITE_STATE_DIR'
  | 'SATELLITE_NAME'
  | 'SATELLITE_PUBLIC_URL'
  | 'BACKEND_REQUEST_TIMEOUT_MS'
  | 'HEARTBEAT_INTERVAL_MS'
  | 'CONFIG_SYNC_INTERVAL_MS'
  | 'COMMAND_WAIT_MS'
  | 'EVENT_BATCH_INTERVAL_MS'
  | 'EVENT_MAX_BATCH_SIZE'
  | 'EVENT_MAX_QUEUE_SIZE'
  | 'EVENT_FLUSH_TIMEOUT_MS'
  | 'MCP_HANDSHAKE_TIMEOUT_MS'
>;

/**
 * The satellite's whole conversation with the backend, outbound only: registration and
 * credentials, the event queue (which is the runtime's and gateway's EventSink), then, once the
 * runtime exists, heartbeats, configuration sync and command polling.
 */
export function createBackendLink(options: {
  config: BackendLinkConfig & { BACKEND_URL: string };
  logger: Logger;
  scheduler?: Scheduler;
  /** The app's settings cache: the configuration sync keeps it to the backend's global settings. */
  settings?: SettingsCache;
}) {
  const { config } = options;
  const scheduler = options.scheduler ?? systemScheduler;
  const logger = options.logger.child({ component: 'backend-link' });
  const client = createBackendClient({
    baseUrl: config.BACKEND_URL,
    scheduler,
    timeoutMs: config.BACKEND_REQUEST_TIMEOUT_MS,
  });
  const store = createCredentialsStore({ dir: config.SATELLITE_STATE_DIR });
  const identity = createSatelliteIdentity({
    client,
    store,
    registrationToken: readRegistrationToken(config, logger),
    scheduler,
    logger,
    details: () => ({
      name: config.SATELLITE_NAME ?? os.hostname(),
      capabilities: ['stdio', 'http', 'sse'],
      system_info: {
        hostname: os.hostname(),
        platform: os.platform(),
        arch: os.arch(),
        os_release: os.release(),
        node_version: process.version,
        cpu_count: os.cpus().length,
        memory_total_mb: Math.round(os.totalmem() / (1024 * 1024)),
      },
      ...(config.SATELLITE_PUBLIC_URL ? { satellite_url: config.SATELLITE_PUBLIC_URL } : {}),
    }),
  });
  const linkHealth = createLinkHealth();
  const api = createSatelliteApi({ client, identity, onOutcome: (ok) => linkHealth.record(ok) });
  const events = createEventQueue({
    send: createEventBatchSender(api),
    scheduler,
    logger,
    batchIntervalMs: config.EVENT_BATCH_INTERVAL_MS,
    maxBatchSize: config.EVENT_MAX_BATCH_SIZE,
    maxQueueSize: config.EVENT_MAX_QUEUE_SIZE,
    flushTimeoutMs: config.EVENT_FLUSH_TIMEOUT_MS,
  });

  const stopping = new AbortController();
  let parts:
    | {
        heartbeat: ReturnType<typeof createHeartbeat>;
        configSync: ReturnType<typeof createConfigSync>;
        poller: ReturnType<typeof createCommandPoller>;
        executor: ReturnType<typeof createCommandExecutor>;
      }
    | undefined;

  return {
    events,
    identity,
    /**
     * oauth mode: the API key introspection sends, read at every call (a re-registration's new key is
     * used at once); a 401 of introspection goes through the same re-registration as any other.
     */
    /** Tokens for calls of remote servers behind OAuth (memory only). */
    upstreamTokens: createUpstreamTokens({ api }),
    introspectionCredential: {
      current: () => identity.current()?.api_key ?? null,
      refused: (apiKey: string) => identity.handleUnauthorized(apiKey),
    } satisfies IntrospectionCredential,
    /**
     * Registers (or loads the credentials), then starts everything against `runtime`. Transient
     * failures are retried; a refused or missing token rejects, with what the operator must do.
     */
    async start(runtime: ServerRuntime): Promise<void> {
      const credentials = await identity.ensure(stopping.signal);
      if (stopping.signal.aborted) return;
      logger.info({ satellite_id: credentials.satellite_id, backend: client.baseUrl }, 'linked to the backend');
      events.start();
      const heartbeat = createHeartbeat({
        api,
        scheduler,
        logger,
        intervalMs: config.HEARTBEAT_INTERVAL_MS,
        satelliteUrl: config.SATELLITE_PUBLIC_URL,
        collect: createMetricsCollector({
          diskPath: config.SATELLITE_STATE_DIR,
          snapshot: () => runtime.snapshot(),
          configuration: (id) => runtime.configuration(id),
          linkHealth,
        }),
      });
      const configSync = createConfigSync({
        api,
        runtime,
        events,
        logger,
        scheduler,
        intervalMs: config.CONFIG_SYNC_INTERVAL_MS,
        ...(options.settings ? { settings: options.settings } : {}),
      });
      const executor = createCommandExecutor({
        api,
        runtime,
        configSync,
        events,
        logger,
        credentialCheckTimeoutMs: config.MCP_HANDSHAKE_TIMEOUT_MS,
      });
      const poller = createCommandPoller({
        api,
        executor,
        scheduler,
        logger,
        waitMs: config.COMMAND_WAIT_MS,
        onSettingsChanged: () => configSync.sync('settings'),
      });
      parts = { heartbeat, configSync, poller, executor };
      // The first heartbeat activates a new satellite, so polling gets real commands from the start.
      await heartbeat.beat();
      heartbeat.start();
      await configSync.sync('start').catch(() => {});
      configSync.start();
      if (stopping.signal.aborted) return;
      poller.start();
    },
    /** Polls for commands now instead of at the next interval; resolves once they have run. */
    poll: async () => {
      await parts?.poller.poll();
    },
    /** What `GET /` shows about the link. */
    status() {
      const credentials = identity.current();
      return {
        backend_url: client.baseUrl,
        registered: credentials !== null,
        satellite_id: credentials?.satellite_id ?? null,
        last_heartbeat: parts?.heartbeat.last() ?? null,
        polling: parts?.poller.state() ?? null,
        config_hash: parts?.configSync.hash() ?? null,
        commands: parts?.executor.stats() ?? null,
        events: events.stats(),
      };
    },
    /** Stops the loops, then flushes the event queue within EVENT_FLUSH_TIMEOUT_MS. */
    async stop(): Promise<{ sent: number; lost: number }> {
      stopping.abort();
      parts?.heartbeat.stop();
      parts?.configSync.stop();
      parts?.poller.stop();
      return events.shutdown();
    },
  };
}

export type BackendLink = ReturnType<typeof createBackendLink>;
