import { fileURLToPath } from 'node:url';
import { type Bus, ensureStream } from '@orbital/bus';
import { installationEventsStream } from '@orbital/contracts';
import { postgresConnectionFromEnv } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import { type DatabaseOwnerHandle, startDatabaseOwner } from '@orbital/service';
import type { Config } from './config.ts';

export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** Wires the service onto a bus. No environment access: tests build the same app. */
export async function createApp(deps: {
  bus: Bus;
  logger: Logger;
  config: Config;
}): Promise<{ database: DatabaseOwnerHandle }> {
  // Installations owns its domain event stream (evt.installation.*).
  await ensureStream(deps.bus, installationEventsStream);
  const database = await startDatabaseOwner({
    bus: deps.bus,
    owner: 'installations',
    connection: postgresConnectionFromEnv(deps.config),
    migrationsDir,
    logger: deps.logger,
  });
  return { database };
}
