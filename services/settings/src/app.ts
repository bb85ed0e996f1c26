import { fileURLToPath } from 'node:url';
import { type AuditContext, createAuditRelay, processActor, recordAudit } from '@orbital/audit';
import { ensureStream } from '@orbital/bus';
import { auditEventsStream, settingsCacheSyncBroadcast, settingsEventsStream } from '@orbital/contracts';
import { createSecretBox } from '@orbital/crypto';
import { postgresConnectionFromEnv } from '@orbital/db';
import { type AppDeps, createDatabaseOwner, type DatabaseOwnerApp } from '@orbital/service';
import type { SettingsConfig } from './config.ts';
import { discoverDefinitions, loadPluginExtensions } from './definitions/discoverDefinitions.ts';
import { mergeDefinitions } from './definitions/mergeDefinitions.ts';
import { createAuditLog } from './domain/createAuditLog.ts';
import { createSettingsOperations, type SettingsOperations } from './domain/createSettingsOperations.ts';
import { initializeSettings } from './domain/initializeSettings.ts';
import { createDatabaseStatusReader } from './domain/readDatabaseStatus.ts';
import { readRetentionDays } from './domain/readRetentionDays.ts';
import { runDatabaseSetup } from './domain/runDatabaseSetup.ts';
import { createSettingsCache } from './domain/settingsCache.ts';
import { startAutomaticSetup } from './domain/startAutomaticSetup.ts';
import { serveAuditHandlers } from './handlers/auditHandlers.ts';
import { serveDbHandlers } from './handlers/dbHandlers.ts';
import { serveSettingsHandlers } from './handlers/settingsHandlers.ts';

export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));
const definitionsDir = fileURLToPath(new URL('./definitions', import.meta.url));

/** `stop()` stops the timers; the audit relay's delivery in flight is awaited. */
export type SettingsApp = DatabaseOwnerApp<SettingsOperations> & {
  /** With DATABASE_SETUP=auto: settles once this replica saw the database set up (by itself or another). */
  automaticSetup: Promise<'set up' | 'already set up' | 'stopped'> | undefined;
};

/** Wires the settings service onto a bus. No environment access: tests build the same app. */
export async function createSettingsApp(deps: AppDeps<SettingsConfig>): Promise<SettingsApp> {
  const { bus, logger, config } = deps;
  const connection = postgresConnectionFromEnv(config);
  const box = createSecretBox(config.SERVICE_ENCRYPTION_SECRET);
  const definitions = mergeDefinitions(
    await discoverDefinitions(definitionsDir),
    await loadPluginExtensions(config.SETTINGS_PLUGIN_MODULES),
  );
  const cache = createSettingsCache();
  // Settings owns EVENTS_SETTINGS, so evt.settings.changed is kept for durable consumers.
  await ensureStream(bus, settingsEventsStream);
  // Settings stores the audit log, and owns the stream its stored entries are published on.
  await ensureStream(bus, auditEventsStream);

  // Broadcast changes from other replicas; subscribed before the first load so none is missed.
  bus.listen(settingsCacheSyncBroadcast, (sync) => operations.receive(sync));

  const database = createDatabaseOwner({
    bus,
    owner: 'settings',
    connection,
    migrationsDir,
    logger,
    // At start when already set up, or when setup runs while this replica is up.
    onMigrated: async () => {
      await initializeSettings({ pool: database.pool.get(), box, definitions, logger });
      await operations.reload();
    },
  });
  const operations = createSettingsOperations({
    pool: database.pool,
    cache,
    box,
    bus,
    logger,
    definitions: definitions.settings,
  });
  await database.start();

  const resync = setInterval(() => {
    if (database.pool.isReady())
      operations.reload().catch((err: unknown) => logger.warn({ err }, 'settings cache reload failed'));
  }, config.SETTINGS_CACHE_RESYNC_MS);
  resync.unref();
  void (async () => {
    for await (const status of bus.connection.status()) {
      // Broadcasts sent while disconnected are lost: reload everything once back.
      if (status.type === 'reconnect' && database.pool.isReady()) await operations.reload().catch(() => {});
    }
  })();

  serveSettingsHandlers(bus, operations);
  serveAuditHandlers(
    bus,
    createAuditLog({ pool: database.pool, bus, logger, retentionDays: () => readRetentionDays(operations, logger) }),
  );
  // Settings records its own actions (setting changes, database setup) like every owner.
  const auditRelay = createAuditRelay({ pool: database.pool, bus, logger, source: 'settings' });
  auditRelay.start();
  const readStatus = createDatabaseStatusReader(connection);
  // Asked for by a person (POST /api/db/setup), or by this process itself (DATABASE_SETUP=auto).
  const setup = (who: AuditContext = { actor: processActor('settings'), source_ip: null, request_id: null }) =>
    runDatabaseSetup({
      connection,
      bus,
      logger,
      persistentDataDir: config.PERSISTENT_DATA_DIR,
      serviceTimeoutMs: config.DB_SETUP_SERVICE_TIMEOUT_MS,
      migrateOwnSchema: database.migrate,
      recordSetup: (details) =>
        recordAudit(database.pool.get(), {
          ...who,
          action: 'database.setup',
          target: { kind: 'database', id: null },
          details: { database_type: 'postgresql', ...details },
        }),
    });
  serveDbHandlers(bus, { readStatus, setup });
  const automaticSetup =
    config.DATABASE_SETUP === 'auto' ? startAutomaticSetup({ readStatus, setup, logger }) : undefined;
  return {
    database,
    operations,
    automaticSetup: automaticSetup?.done,
    async stop() {
      clearInterval(resync);
      automaticSetup?.stop();
      await auditRelay.stop();
    },
  };
}
