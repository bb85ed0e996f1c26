import type { Bus } from '@orbital/bus';
import { type DatabaseOwner, databaseSetupCompletedBroadcast, migrateSubjects } from '@orbital/contracts';
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
  /**
   * For readiness: the schema's database answers, or there is nothing to reach yet (not configured, or
   * not set up, when the service must stay ready to take the setup request).
   */
  isReachable(): boolean;
  /** Applies pending migrations if database setup has completed; otherwise waits for setup. */
  start(): Promise<void>;
  /** Applies pending migrations now; used by the setup flow and at start once setup has happened. */
  migrate(): Promise<{ schema: string; applied: string[] }>;
};

/**
 * What a database-owning service's composition root hands its process: the database (its readiness, and
 * the pool to end once the bus drained), its operations, and `stop()` for what it started, called before
 * the bus drains.
 */
export type DatabaseOwnerApp<Operations> = {
  database: DatabaseOwnerHandle;
  operations: Operations;
  stop(): Promise<void>;
};

/**
 * What every database-owning service does with its schema: answer `<owner>.db.migrate` (sent by
 * database setup), and at start apply pending migrations if setup has already completed. The schema is
 * named after the owner. The pool is opened either way; handlers reach it through `pool.get()`.
 */
export async function startDatabaseOwner(options: DatabaseOwnerOptions): Promise<DatabaseOwnerHandle> {
  const handle = createDatabaseOwner(options);
  await handle.start();
  return handle;
}

/** The same, in two steps, for services that wire handlers on the pool before migrations run. */
export function createDatabaseOwner(options: DatabaseOwnerOptions): DatabaseOwnerHandle {
  const { bus, owner, connection, logger } = options;
  const pool: LivePool | null = connection
    ? createLivePool(connection, { maximumPoolSize: options.maximumPoolSize ?? 10, schema: owner })
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

  bus.serve(migrateSubjects[owner], () => migrate());

  // Setup's migrate request reached one replica of this service; the broadcast reaches the rest.
  bus.listen(databaseSetupCompletedBroadcast, () => {
    if (!pool || pool.isReady()) return;
    start().catch((err: unknown) => logger.error({ err }, 'could not open the database after setup'));
  });

  const start = async () => {
    if (!connection || !pool) {
      logger.warn('database not configured: POSTGRES_HOST, POSTGRES_DATABASE and POSTGRES_USER are not all set');
      return;
    }
    if (await readDatabaseSetupRecord(connection)) {
      const result = await migrate();
      logger.info({ schema: owner, applied: result.applied.length }, 'schema up to date');
    } else {
      logger.info({ schema: owner }, 'database not set up yet; waiting for POST /api/db/setup');
    }
  };

  const live = pool ?? unconfiguredPool();
  return { pool: live, isReachable: () => !live.isReady() || live.isReachable(), migrate, start };
}

function unconfiguredPool(): LivePool {
  const refuse = () => {
    throw new AppError('unavailable', 'The database is not configured');
  };
  return {
    get: refuse,
    isReady: () => false,
    isReachable: () => false,
    open: async () => refuse(),
    end: async () => {},
  };
}
