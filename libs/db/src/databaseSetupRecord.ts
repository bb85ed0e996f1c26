import pg from 'pg';
import { databaseUnavailable, isDatabaseUnavailable } from './databaseErrors.ts';
import { type PostgresConnection, pgClientConfig } from './postgresConnection.ts';

/**
 * The platform-wide record that database setup completed. It sits outside every service's schema
 * because every database-owning service reads it at start to decide whether to apply its migrations;
 * only the settings service (which runs setup) writes it.
 */
export type DatabaseSetupRecord = { databaseType: string; selectedAt: Date; version: string };

const createTable = `CREATE TABLE IF NOT EXISTS public.orbital_database_setup (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  database_type text NOT NULL,
  selected_at timestamptz NOT NULL,
  version text NOT NULL
)`;

/** One short-lived client; an outage rejects as `unavailable` (503), like the pool's queries. */
async function withClient<T>(connection: PostgresConnection, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(pgClientConfig(connection));
  // A socket error after connect is also reported by the query that was running; this keeps it from
  // crashing the process as an unhandled 'error' event.
  client.on('error', () => {});
  try {
    await client.connect();
    return await fn(client);
  } catch (error) {
    throw isDatabaseUnavailable(error) ? databaseUnavailable(error) : error;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function readDatabaseSetupRecord(connection: PostgresConnection): Promise<DatabaseSetupRecord | null> {
  return withClient(connection, async (client) => {
    const exists = await client.query<{ present: boolean }>(
      `SELECT to_regclass('public.orbital_database_setup') IS NOT NULL AS present`,
    );
    if (!exists.rows[0]?.present) return null;
    const result = await client.query<{ database_type: string; selected_at: Date; version: string }>(
      'SELECT database_type, selected_at, version FROM public.orbital_database_setup',
    );
    const row = result.rows[0];
    return row ? { databaseType: row.database_type, selectedAt: row.selected_at, version: row.version } : null;
  });
}

/** Writes the record once; returns false when setup had already been recorded. */
export async function writeDatabaseSetupRecord(
  connection: PostgresConnection,
  record: DatabaseSetupRecord,
): Promise<boolean> {
  return withClient(connection, async (client) => {
    await client.query(createTable);
    const result = await client.query(
      `INSERT INTO public.orbital_database_setup (database_type, selected_at, version)
       VALUES ($1, $2, $3) ON CONFLICT (singleton) DO NOTHING`,
      [record.databaseType, record.selectedAt, record.version],
    );
    return result.rowCount === 1;
  });
}

/** Runs fn while holding a transaction-independent advisory lock, so two setups never run at once. */
export async function withAdvisoryLock<T>(
  connection: PostgresConnection,
  key: string,
  fn: () => Promise<T>,
): Promise<T> {
  return withClient(connection, async (client) => {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]).catch(() => {});
    }
  });
}
