import type { Bus } from '@orbital/bus';
import { type DatabaseOwner, migrateSubjects } from '@orbital/contracts';
import {
  createLivePool,
  type LivePool,
  migrateSchema,
  type PostgresConnection,
  readDatabaseSetupRecord,
} from '@orbital/db';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';

export type DatabaseOwnerOptions = {
  bus: Bus;
  owner: DatabaseOwner;
  /** Null when the POSTGRES_* variables are not set: the service runs and answers `unavailable`. */
  connection: PostgresConnection | null;
  migrationsDir: string;
  logger: Logger;
  maximumPoolSize?: number;
  /**
   * Runs after each successful migration (at start once setup is done, and when setup asks), with the
   * pool open: for work that needs the schema to exist, such as gateway-api creating the first admin.
   */
  onMigrated?: () => Promise<void>;
};

export type DatabaseOwnerHandle = {
  pool: LivePool;
  /** Applies pending migrations now; used by the setup flow and at start once setup has happened. */
  migrate(): Promise<{ schema: string; applied: string[] }>;
};

/**
 * What every database-owning service does with its schema: answer `<owner>.db.migrate` (sent by
 * database setup), and at start apply pending migrations if setup has already completed. The schema is
 * named after the owner. The pool is opened either way; handlers reach it through `pool.get()`.
 */
export async function startDatabaseOwner(options: DatabaseOwnerOptions): Promise<DatabaseOwnerHandle> {
  const { bus, owner, connection, logger } = options;
  const pool: LivePool | null = connection
    ? createLivePool(connection, { maximumPoolSize: options.maximumPoolSize ?? 10 })
    : null;

  const migrate = async () => {
    if (!connection || !pool) {
      throw new AppError(
        'unavailable',
        'The database is not configured: set POSTGRES_HOST, POSTGRES_DATABASE and POSTGRES_USER',
      );
    }
    const result = await migrateSchema({ connection, schema: owner, migrationsDir: options.migrationsDir, logger });
    await pool.open();
    await options.onMigrated?.();
    return result;
  };

  bus.serve(migrateSubjects[owner], async (_request, context) => {
    if (context.identity.kind !== 'service')
      throw new AppError('forbidden', 'Only platform services may run migrations');
    return migrate();
  });

  if (connection && pool) {
    const record = await readDatabaseSetupRecord(connection);
    if (record) {
      const result = await migrate();
      logger.info({ schema: owner, applied: result.applied.length }, 'schema up to date');
    } else {
      logger.info({ schema: owner }, 'database not set up yet; waiting for POST /api/db/setup');
    }
  } else {
    logger.warn('database not configured: POSTGRES_HOST, POSTGRES_DATABASE and POSTGRES_USER are not all set');
  }

  return {
    pool: pool ?? unconfiguredPool(),
    migrate,
  };
}

function unconfiguredPool(): LivePool {
  const refuse = () => {
    throw new AppError('unavailable', 'The database is not configured');
  };
  return { get: refuse, isReady: () => false, open: async () => refuse(), end: async () => {} };
}
