import { fileURLToPath } from 'node:url';
import type { Bus } from '@orbital/bus';
import { postgresConnectionFromEnv } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import { type DatabaseOwnerHandle, startDatabaseOwner } from '@orbital/service';
import type { SettingsConfig } from './config.ts';
import { createDatabaseStatusReader } from './domain/readDatabaseStatus.ts';
import { runDatabaseSetup } from './domain/runDatabaseSetup.ts';
import { serveDbHandlers } from './handlers/dbHandlers.ts';

export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

export type SettingsApp = { database: DatabaseOwnerHandle };

/** Wires the settings service onto a bus. No environment access: tests build the same app. */
export async function createSettingsApp(deps: {
  bus: Bus;
  logger: Logger;
  config: SettingsConfig;
}): Promise<SettingsApp> {
  const { bus, logger, config } = deps;
  const connection = postgresConnectionFromEnv(config);
  const database = await startDatabaseOwner({ bus, owner: 'settings', connection, migrationsDir, logger });
  serveDbHandlers(bus, {
    readStatus: createDatabaseStatusReader(connection),
    setup: () =>
      runDatabaseSetup({
        connection,
        bus,
        logger,
        persistentDataDir: config.PERSISTENT_DATA_DIR,
        serviceTimeoutMs: config.DB_SETUP_SERVICE_TIMEOUT_MS,
        migrateOwnSchema: database.migrate,
      }),
  });
  return { database };
}
