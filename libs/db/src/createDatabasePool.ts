import { AppError } from '@orbital/errors';
import { createPool, type DatabasePool, type Interceptor, type QueryResultRow, SchemaValidationError } from 'slonik';
import { connectionUri, type PostgresConnection } from './postgresConnection.ts';

/**
 * Checks every row of a `sql.type(schema)` query against its schema. slonik carries the schema on the
 * query but only validates rows when an interceptor like this one is installed.
 */
export function createResultParserInterceptor(): Interceptor {
  return {
    name: 'orbital-result-parser',
    transformRowAsync: async (context, query, row) => {
      const parser = context.resultParser;
      if (!parser) return row;
      const result = await parser['~standard'].validate(row);
      if (result.issues) {
        throw new SchemaValidationError(query, row, result.issues as never);
      }
      return result.value as QueryResultRow;
    },
  };
}

export type PoolOptions = { maximumPoolSize?: number /** put first on the search_path */; schema?: string };

export async function createDatabasePool(
  connection: PostgresConnection,
  options: PoolOptions = {},
): Promise<DatabasePool> {
  return createPool(connectionUri(connection, options.schema ? { schema: options.schema } : {}), {
    interceptors: [createResultParserInterceptor()],
    maximumPoolSize: options.maximumPoolSize ?? 10,
    // Fail a request quickly rather than queueing it forever behind a stuck database.
    connectionTimeout: 5000,
    statementTimeout: 30000,
  });
}

/**
 * The live connection behind a getter. A service starts before the database may be set up, and its
 * handlers must not hold a pool that is still null during initialisation; they call `get()` on every
 * use, which answers `unavailable` until the pool exists.
 */
export type LivePool = {
  get(): DatabasePool;
  isReady(): boolean;
  open(): Promise<DatabasePool>;
  end(): Promise<void>;
};

export function createLivePool(connection: PostgresConnection, options: PoolOptions = {}): LivePool {
  let pool: DatabasePool | null = null;
  let opening: Promise<DatabasePool> | null = null;
  return {
    get() {
      if (!pool) throw new AppError('unavailable', 'The database connection is not ready yet');
      return pool;
    },
    isReady: () => pool !== null,
    open() {
      opening ??= createDatabasePool(connection, options).then((created) => {
        pool = created;
        return created;
      });
      return opening;
    },
    async end() {
      const current = pool ?? (opening ? await opening.catch(() => null) : null);
      pool = null;
      opening = null;
      await current?.end();
    },
  };
}
