import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@orbital/logger';
import pg from 'pg';
import { type PostgresConnection, pgClientConfig } from './postgresConnection.ts';

export type MigrateOptions = {
  connection: PostgresConnection;
  /** The service's own schema; migrations run with it first on the search_path. */
  schema: string;
  /** Folder of `NNNN_name.sql` files, applied in name order. */
  migrationsDir: string;
  logger: Logger;
};

export type MigrateResult = { schema: string; applied: string[] };

const migrationFile = /^\d{4}_[a-z0-9_]+\.sql$/;
const schemaName = /^[a-z][a-z0-9_]*$/;

export class MigrationError extends Error {
  readonly file: string;
  constructor(file: string, message: string, cause?: unknown) {
    super(`${file}: ${message}`, { cause });
    this.name = 'MigrationError';
    this.file = file;
  }
}

/**
 * Applies the pending migrations of one schema. Each file runs whole (never split into statements by
 * hand) in its own transaction, and is recorded in `<schema>.migrations` in that same transaction, so it
 * is applied exactly once. A session advisory lock per schema makes replicas that start together wait
 * for each other instead of racing.
 */
export async function migrateSchema(options: MigrateOptions): Promise<MigrateResult> {
  const { schema, logger } = options;
  if (!schemaName.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const files = (await readdir(options.migrationsDir)).filter((f) => migrationFile.test(f)).sort();

  const client = new pg.Client(pgClientConfig(options.connection));
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`orbital.migrations.${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.migrations (
         name text PRIMARY KEY,
         checksum text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const done = new Map<string, string>(
      (
        await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM ${schema}.migrations`)
      ).rows.map((r) => [r.name, r.checksum]),
    );
    for (const file of files) {
      const text = await readFile(join(options.migrationsDir, file), 'utf8');
      const checksum = createHash('sha256').update(text).digest('hex');
      const previous = done.get(file);
      if (previous !== undefined) {
        if (previous !== checksum) {
          throw new MigrationError(file, 'was changed after it was applied; add a new migration instead');
        }
        continue;
      }
      try {
        await client.query('BEGIN');
        await client.query(`SET LOCAL search_path TO ${schema}, public`);
        // No parameters: pg uses the simple query protocol, which runs every statement of the file.
        await client.query(text);
        await client.query(`INSERT INTO ${schema}.migrations (name, checksum) VALUES ($1, $2)`, [file, checksum]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw new MigrationError(file, (error as Error).message, error);
      }
      applied.push(file);
      logger.info({ schema, migration: file }, 'migration applied');
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`orbital.migrations.${schema}`]).catch(() => {});
    await client.end();
  }
  return { schema, applied };
}
