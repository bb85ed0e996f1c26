import { AppError } from '@orbital/errors';
import {
  createPool,
  type DatabasePool,
  type Interceptor,
  type QueryResultRow,
  SchemaValidationError,
  sql,
} from 'slonik';
import { databaseUnavailable, isDatabaseUnavailable } from './databaseErrors.ts';
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
    // slonik's default sends DISCARD ALL each time a connection goes back to the pool: a second round
    // trip for every query. Nothing here leaves session state behind (every SET is a transaction's own,
    // advisory locks are taken on connections of their own), so there is nothing to discard.
    resetConnection: async () => {},
  });
}

/**
 * The live connection behind a getter. A service starts before the database may be set up, and its
 * handlers must not hold a pool that is still null during initialisation; they call `get()` on every
 * use, which answers `unavailable` until the pool exists.
 *
 * The pool it hands out answers an outage as one: a query or transaction that fails because PostgreSQL
 * cannot be reached (or cannot serve now) rejects with AppError `unavailable` (503), never `internal`,
 * the driver's error kept as the cause. Other failures (constraints, bad input, bugs) pass unchanged.
 * It also keeps `isReachable()` for readiness: every query's outcome counts, and a probe (`SELECT 1`)
 * runs every `probeIntervalMs` (every second while the database is away, so its return is seen soon).
 */
export type LivePool = {
  get(): DatabasePool;
  isReady(): boolean;
  /** Open, and the last query or probe reached PostgreSQL. */
  isReachable(): boolean;
  open(): Promise<DatabasePool>;
  end(): Promise<void>;
};

/** The methods of a pool whose failures are looked at; the rest (configuration, state) pass through. */
const queryMethods = new Set<PropertyKey>([
  'any',
  'anyFirst',
  'exists',
  'many',
  'manyFirst',
  'maybeOne',
  'maybeOneFirst',
  'one',
  'oneFirst',
  'query',
  'transaction',
  'connect',
  'stream',
]);

export function createLivePool(
  connection: PostgresConnection,
  options: PoolOptions & { probeIntervalMs?: number } = {},
): LivePool {
  let pool: DatabasePool | null = null;
  let guarded: DatabasePool | null = null;
  let opening: Promise<DatabasePool> | null = null;
  let reachable = true;
  let probe: NodeJS.Timeout | null = null;
  const probeEvery = options.probeIntervalMs ?? 5000;

  const observe = <T>(result: Promise<T>): Promise<T> =>
    result.then(
      (value) => {
        reachable = true;
        return value;
      },
      (error: unknown) => {
        if (!isDatabaseUnavailable(error)) {
          // The database answered (with an error of the query's own): it is there.
          reachable = true;
          throw error;
        }
        reachable = false;
        throw error instanceof AppError ? error : databaseUnavailable(error);
      },
    );

  const guard = (target: DatabasePool): DatabasePool => {
    const wrapped = new Map<PropertyKey, unknown>();
    return new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver);
        if (typeof value !== 'function' || !queryMethods.has(property)) return value;
        let fn = wrapped.get(property);
        if (!fn) {
          fn = (...args: unknown[]) => {
            const result: unknown = value.apply(object, args);
            return result instanceof Promise ? observe(result) : result;
          };
          wrapped.set(property, fn);
        }
        return fn;
      },
    });
  };

  const scheduleProbe = () => {
    probe = setTimeout(
      () => {
        const current = guarded;
        if (!current) return;
        void current
          .query(sql.unsafe`SELECT 1`)
          .catch(() => {})
          .finally(() => {
            if (guarded === current) scheduleProbe();
          });
      },
      reachable ? probeEvery : Math.min(probeEvery, 1000),
    );
    probe.unref();
  };

  return {
    get() {
      if (!guarded) throw new AppError('unavailable', 'The database connection is not ready yet');
      return guarded;
    },
    isReady: () => pool !== null,
    isReachable: () => pool !== null && reachable,
    open() {
      opening ??= createDatabasePool(connection, options).then((created) => {
        pool = created;
        guarded = guard(created);
        scheduleProbe();
        return guarded;
      });
      return opening;
    },
    async end() {
      const current = pool ?? (opening ? await opening.catch(() => null) : null);
      if (probe) clearTimeout(probe);
      pool = null;
      guarded = null;
      opening = null;
      await current?.end();
    },
  };
}
