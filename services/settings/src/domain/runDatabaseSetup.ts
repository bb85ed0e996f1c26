import type { Bus } from '@orbital/bus';
import {
  type DbSetupReply,
  databaseOwners,
  databaseSetupCompletedBroadcast,
  migrateSubjects,
  serviceIdentity,
} from '@orbital/contracts';
import {
  type PostgresConnection,
  readDatabaseSetupRecord,
  withAdvisoryLock,
  writeDatabaseSetupRecord,
} from '@orbital/db';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import { writeSelectionRecordFile } from './selectionRecordFile.ts';

export type DatabaseSetupDeps = {
  connection: PostgresConnection | null;
  bus: Bus;
  logger: Logger;
  persistentDataDir: string;
  serviceTimeoutMs: number;
  /** Applies the settings service's own migrations in-process. */
  migrateOwnSchema(): Promise<unknown>;
  /** Records the completed setup in the audit log (the settings schema exists by then). */
  recordSetup(details: { unconfirmed_services: string[] }): Promise<void>;
  now?: () => Date;
};

export const setupMessages = {
  ready: 'Database setup completed: all services are initialised and ready.',
  restartRequired: (services: string[]) =>
    `Database setup completed, but some services may need a server restart to finish initialising (${services.join(', ')} did not confirm in time).`,
};

/**
 * The setup call (POST /api/db/setup). Under an advisory lock (two concurrent setups: one runs, the
 * other gets a conflict): refuse when already set up, apply this service's migrations, ask every other
 * database-owning service to apply its own, then record the setup in PostgreSQL and in the selection
 * file. A service that does not answer in time does not fail setup: it migrates when it next starts
 * (it reads the setup record at start), which is what restart_required tells the caller.
 */
export async function runDatabaseSetup(deps: DatabaseSetupDeps): Promise<DbSetupReply> {
  const { connection, bus, logger } = deps;
  if (!connection) {
    throw new AppError('unavailable', 'The database is not configured', {
      instructions:
        'Set POSTGRES_HOST, POSTGRES_DATABASE and POSTGRES_USER (and POSTGRES_PASSWORD if needed), restart, then run setup again.',
    });
  }
  return withAdvisoryLock(connection, 'orbital.database-setup', async () => {
    if (await readDatabaseSetupRecord(connection)) {
      throw new AppError('conflict', 'The database has already been set up');
    }
    await deps.migrateOwnSchema();
    const others = databaseOwners.filter((owner) => owner !== 'settings');
    const results = await Promise.allSettled(
      others.map((owner) =>
        bus.request(
          migrateSubjects[owner],
          {},
          { identity: serviceIdentity('settings'), timeoutMs: deps.serviceTimeoutMs },
        ),
      ),
    );
    const unconfirmed: string[] = [];
    results.forEach((result, index) => {
      const owner = others[index] as string;
      if (result.status === 'fulfilled') return;
      const error = result.reason;
      if (error instanceof AppError && error.code === 'unavailable') {
        unconfirmed.push(owner);
        return;
      }
      // A migration that ran and failed is a defect, not a slow service: stop before recording setup,
      // so setup can be run again once it is fixed (applied migrations are not re-applied).
      throw new AppError('internal', `Database setup failed while migrating the ${owner} schema`, { cause: error });
    });
    const selectedAt = (deps.now ?? (() => new Date()))();
    await writeDatabaseSetupRecord(connection, { databaseType: 'postgresql', selectedAt, version: '1.0' });
    const file = await writeSelectionRecordFile(deps.persistentDataDir, {
      type: 'postgresql',
      selectedAt: selectedAt.toISOString(),
      version: '1.0',
    });
    // The setup record lives outside any service's schema, so its entry cannot share its transaction:
    // it is written right after, and a failure to write it is logged rather than undoing the setup.
    await deps
      .recordSetup({ unconfirmed_services: unconfirmed })
      .catch((err: unknown) => logger.error({ err }, 'database setup completed but its audit entry was not written'));
    bus.broadcast(databaseSetupCompletedBroadcast, { completed_at: selectedAt.toISOString() });
    await bus.connection.flush();
    logger.info({ selection_file: file, unconfirmed }, 'database setup completed');
    return unconfirmed.length === 0
      ? { message: setupMessages.ready, restart_required: false, database_type: 'postgresql' }
      : { message: setupMessages.restartRequired(unconfirmed), restart_required: true, database_type: 'postgresql' };
  });
}
