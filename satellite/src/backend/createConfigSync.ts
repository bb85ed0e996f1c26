import { createHash } from 'node:crypto';
import { type ServerConfiguration, satelliteGlobalSettings, serverConfiguration } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import type { EventSink } from '../events/eventSink.ts';
import { canonicalJson } from '../runtime/canonicalJson.ts';
import type { ServerRuntime } from '../runtime/createServerRuntime.ts';
import type { SettingsCache } from '../settings/createSettingsCache.ts';
import { shownSettings } from '../settings/shownSettings.ts';
import { describeFailure } from './createBackendClient.ts';
import type { SatelliteApi } from './createSatelliteApi.ts';
import type { Scheduler, SchedulerTimer } from './scheduler.ts';

/** SHA-256 over canonical JSON (sorted keys), first 12 hex characters: the same servers, the same hash. */
export function configurationHash(servers: readonly ServerConfiguration[]): string {
  return createHash('sha256').update(canonicalJson({ servers })).digest('hex').slice(0, 12);
}

export type SyncResult = {
  config_hash: string;
  change_detected: boolean;
  started: string[];
  stopped: string[];
  restarted: string[];
  unchanged: string[];
};

export class ConfigSyncError extends Error {
  readonly statusCode: number | null;
  constructor(message: string, statusCode: number | null) {
    super(message);
    this.name = 'ConfigSyncError';
    this.statusCode = statusCode;
  }
}

/** Reads the backend's list server by server: one bad entry is skipped with a warning, not the whole list. */
function readServers(data: unknown, logger: Logger): ServerConfiguration[] | null {
  const list = (data as { servers?: unknown } | null)?.servers;
  if (!Array.isArray(list)) return null;
  const servers: ServerConfiguration[] = [];
  const seen = new Set<string>();
  for (const item of list) {
    const parsed = serverConfiguration.safeParse(item);
    const id = (item as { installation_id?: unknown } | null)?.installation_id;
    if (!parsed.success) {
      logger.warn(
        {
          installation_id: typeof id === 'string' ? id : null,
          fields: parsed.error.issues.map((i) => i.path.join('.')),
        },
        'installation configuration skipped: not a valid server configuration',
      );
      continue;
    }
    if (seen.has(parsed.data.installation_id)) {
      logger.warn({ installation_id: parsed.data.installation_id }, 'installation listed twice; first kept');
      continue;
    }
    seen.add(parsed.data.installation_id);
    servers.push(parsed.data);
  }
  return servers;
}

/**
 * Stores the global settings that came with the configuration. A reply without them (the registry
 * could not read them) or with a bad object leaves the cache as it is: better the last known settings
 * than defaults an administrator may have turned off.
 */
function storeSettings(data: unknown, cache: SettingsCache, logger: Logger): void {
  const sent = (data as { settings?: unknown } | null)?.settings;
  if (sent === undefined) return;
  const parsed = satelliteGlobalSettings.safeParse(sent);
  if (!parsed.success) {
    logger.warn(
      { fields: parsed.error.issues.map((i) => i.path.join('.')) },
      'global settings in the configuration not understood; keeping the settings held',
    );
    return;
  }
  if (cache.update(parsed.data, 'backend')) {
    logger.info({ settings_hash: cache.current().hash, ...shownSettings(parsed.data) }, 'global settings applied');
  }
}

/**
 * Configuration sync: fetches GET /api/satellites/:id/config on `configure` commands and on a slow
 * safety interval, and applies the difference to the runtime (start new, stop removed, restart
 * changed, leave unchanged alone). Emits `config.refreshed` after each fetch and `config.error` (with
 * when it retries) after each failure; failures retry from 30 s, doubling up to the safety interval.
 */
export function createConfigSync(options: {
  api: SatelliteApi;
  runtime: ServerRuntime;
  events: EventSink;
  logger: Logger;
  scheduler: Scheduler;
  intervalMs: number;
  retryBaseMs?: number;
  /** Receives the global settings sent with each configuration. */
  settings?: SettingsCache;
}) {
  const { api, runtime, events, logger, scheduler } = options;
  const retryBaseMs = options.retryBaseMs ?? 30000;
  let hash = configurationHash(runtime.configurations());
  let failures = 0;
  let timer: SchedulerTimer | undefined;
  let started = false;
  let running: Promise<SyncResult> | undefined;
  let queued: Promise<SyncResult> | undefined;

  const schedule = (ms: number) => {
    if (!started) return;
    scheduler.clearTimeout(timer);
    timer = scheduler.setTimeout(() => {
      sync('interval').catch(() => {});
    }, ms);
  };

  const fetchAndApply = async (reason: string): Promise<SyncResult> => {
    const began = scheduler.now();
    const result = await api.call('GET', '/config');
    const fetchMs = Math.max(0, scheduler.now() - began);
    let servers: ServerConfiguration[] | null = null;
    let failure: ConfigSyncError | undefined;
    if (result.kind !== 'ok') {
      failure = new ConfigSyncError(describeFailure(result), result.kind === 'http' ? result.status : null);
    } else {
      servers = readServers(result.data, logger);
      if (!servers) failure = new ConfigSyncError('configuration reply not understood', result.status);
    }
    if (failure || !servers) {
      failures++;
      const retryMs = Math.min(options.intervalMs, retryBaseMs * 2 ** (failures - 1));
      events.emit('config.error', {
        error_type: 'server_error',
        error_message: (failure?.message ?? 'unknown').slice(0, 4000),
        status_code: failure?.statusCode ?? null,
        retry_in: retryMs / 1000,
      });
      logger.warn({ reason, err: failure, retry_in_ms: retryMs }, 'configuration fetch failed');
      schedule(retryMs);
      throw failure;
    }
    failures = 0;
    if (options.settings && result.kind === 'ok') storeSettings(result.data, options.settings, logger);
    const nextHash = configurationHash(servers);
    const changed = nextHash !== hash;
    const applied = changed
      ? await runtime.apply(servers)
      : { started: [], stopped: [], restarted: [], unchanged: servers.map((s) => s.installation_id) };
    hash = nextHash;
    events.emit('config.refreshed', {
      config_hash: nextHash,
      server_count: servers.length,
      teams_count: new Set(servers.map((s) => s.team_id)).size,
      change_detected: changed,
      fetch_duration_ms: fetchMs,
    });
    if (changed) {
      logger.info(
        {
          reason,
          config_hash: nextHash,
          started: applied.started.length,
          stopped: applied.stopped.length,
          restarted: applied.restarted.length,
          unchanged: applied.unchanged.length,
        },
        'configuration applied',
      );
    }
    schedule(options.intervalMs);
    return { config_hash: nextHash, change_detected: changed, ...applied };
  };

  /**
   * One fetch-and-apply. A call while one runs waits for it and then fetches again (the running
   * fetch may predate the change being announced); any number of such calls share that second fetch.
   */
  const sync = (reason: string): Promise<SyncResult> => {
    if (!running) {
      running = fetchAndApply(reason).finally(() => {
        running = undefined;
      });
      return running;
    }
    if (!queued) {
      const after = running.catch(() => undefined);
      queued = after.then(() => {
        queued = undefined;
        return sync(reason);
      });
    }
    return queued;
  };

  return {
    sync,
    hash: () => hash,
    start() {
      started = true;
      schedule(options.intervalMs);
    },
    stop() {
      started = false;
      scheduler.clearTimeout(timer);
      timer = undefined;
    },
  };
}

export type ConfigSync = ReturnType<typeof createConfigSync>;
