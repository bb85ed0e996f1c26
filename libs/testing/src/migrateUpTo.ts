import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateSchema } from '@orbital/db';
import { createLogger } from '@orbital/logger';
import pg from 'pg';
import { createTestEnvironment, type TestEnvironment } from './createTestEnvironment.ts';

/**
 * A service's schema in the test environment's database migrated up to, not including, `migration`,
 * for a test of that migration: write rows as they were before it through `db` (its search path is
 * the schema), then `migrateRest()` applies it and every later one, as a deployment would.
 */
export async function migrateUpTo(options: {
  env: TestEnvironment;
  schema: string;
  migrationsDir: string;
  /** The file name of the migration under test. */
  migration: string;
}): Promise<{ db: pg.Client; migrateRest: () => Promise<void>; close: () => Promise<void> }> {
  const { env, schema, migrationsDir, migration } = options;
  const logger = createLogger({ name: `${schema}-migration-test`, level: 'silent' });
  const migrate = (dir: string) =>
    migrateSchema({ connection: { ...env.postgres, ssl: false }, schema, migrationsDir: dir, logger });
  const before = await mkdtemp(join(tmpdir(), 'orbital-migrations-'));
  for (const file of await readdir(migrationsDir)) {
    if (file.endsWith('.sql') && file < migration) await copyFile(join(migrationsDir, file), join(before, file));
  }
  await migrate(before);
  const db = new pg.Client(env.postgres);
  await db.connect();
  await db.query(`SET search_path TO ${schema}, public`);
  return {
    db,
    migrateRest: async () => {
      await migrate(migrationsDir);
    },
    close: async () => {
      await db.end();
      await rm(before, { recursive: true, force: true });
    },
  };
}

/**
 * The same on a test environment of its own, for a file that tests one migration: `stop()` closes the
 * client and removes the environment (for `stackForFile`).
 */
export async function startMigrationTest(options: {
  schema: string;
  migrationsDir: string;
  migration: string;
}): Promise<{ db: pg.Client; migrateRest: () => Promise<void>; stop: () => Promise<void> }> {
  const env = await createTestEnvironment();
  try {
    const { db, migrateRest, close } = await migrateUpTo({ env, ...options });
    return {
      db,
      migrateRest,
      stop: async () => {
        await close();
        await env.cleanup();
      },
    };
  } catch (error) {
    await env.cleanup();
    throw error;
  }
}
