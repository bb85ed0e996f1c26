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
/**
 * Beside the migrations, the checksums an applied file had before only its comments were reworded:
 * `{ "0003_x.sql": ["<sha-256 of the earlier text>"] }`. A database that recorded one of them takes the
 * file as applied and records its new checksum; any other difference is still refused.
 */
export const rewordedChecksumsFile = 'reworded-checksums.json';
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
  const entries = await readdir(options.migrationsDir);
  const files = entries.filter((f) => migrationFile.test(f)).sort();
  const reworded = entries.includes(rewordedChecksumsFile)
    ? await readRewordedChecksums(join(options.migrationsDir, rewordedChecksumsFile))
    : new Map<string, string[]>();

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
        if (previous === checksum) continue;
        if (!reworded.get(file)?.includes(previous)) {
          throw new MigrationError(file, 'was changed after it was applied; add a new migration instead');
        }
        await client.query(`UPDATE ${schema}.migrations SET checksum = $2 WHERE name = $1`, [file, checksum]);
        logger.info({ schema, migration: file }, 'migration comments reworded; its new checksum recorded');
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

async function readRewordedChecksums(path: string): Promise<Map<string, string[]>> {
  const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
  const valid =
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.entries(parsed).every(
      ([file, sums]) =>
        migrationFile.test(file) && Array.isArray(sums) && sums.every((sum) => /^[0-9a-f]{64}$/.test(String(sum))),
    );
  if (!valid) throw new MigrationError(rewordedChecksumsFile, 'must map migration file names to sha-256 checksums');
  return new Map(Object.entries(parsed as Record<string, string[]>));
}
