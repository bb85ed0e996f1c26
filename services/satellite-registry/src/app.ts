import { fileURLToPath } from 'node:url';
import { type Bus, ensureStream } from '@orbital/bus';
import { commandEventsStream, satelliteEventsStream } from '@orbital/contracts';
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
  // The registry owns the satellite event and command event streams: it creates them, and brings them
  // to the definitions in libs/contracts at every start.
  await ensureStream(deps.bus, satelliteEventsStream);
  await ensureStream(deps.bus, commandEventsStream);
  const database = await startDatabaseOwner({
    bus: deps.bus,
    owner: 'registry',
    connection: postgresConnectionFromEnv(deps.config),
    migrationsDir,
    logger: deps.logger,
  });
  return { database };
}
