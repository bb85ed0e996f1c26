import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MigrationError, migrateSchema, type PostgresConnection } from '../src/index.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const logger = createLogger({ name: 'migrate-test', level: 'silent' });
const fixtures = join(import.meta.dirname, 'fixtures');
let env: TestEnvironment;
let connection: PostgresConnection;

async function query<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ ...env.postgres });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/** Runs the migrations in `migrationsDir` on `schema` of the test database. */
const migrate = (schema: string, migrationsDir: string) => migrateSchema({ connection, schema, migrationsDir, logger });

/** A copy of the good migrations, for a test that changes or adds files after applying them. */
async function copyOfGood(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'orbital-mig-'));
  await cp(join(fixtures, 'good'), dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  env = await createTestEnvironment();
  connection = { ...env.postgres, ssl: false };
});
afterAll(() => env.cleanup());

describe('migrateSchema', () => {
  it('applies each file once, whole, in order, and nothing on the second run', async () => {
    const first = await migrate('good', join(fixtures, 'good'));
    expect(first.applied).toEqual(['0001_create.sql', '0002_seed.sql']);
    const second = await migrate('good', join(fixtures, 'good'));
    expect(second.applied).toEqual([]);
    expect(await query('SELECT good.thing_count() AS n')).toEqual([{ n: '2' }]);
    expect((await query('SELECT name FROM good.migrations ORDER BY name')).map((r) => r.name)).toEqual([
      '0001_create.sql',
      '0002_seed.sql',
    ]);
  });

  it('rolls a failing file back entirely and records nothing for it', async () => {
    const error = await migrate('bad', join(fixtures, 'bad')).catch((e) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).file).toBe('0002_broken.sql');
    expect(await query('SELECT count(*)::int AS n FROM bad.things')).toEqual([{ n: 0 }]);
    expect((await query('SELECT name FROM bad.migrations')).map((r) => r.name)).toEqual(['0001_create.sql']);
  });

  it('refuses a file that was changed after it was applied', async () => {
    const dir = await copyOfGood();
    await migrate('changed', dir);
    await writeFile(join(dir, '0002_seed.sql'), "INSERT INTO things (name) VALUES ('c');");
    await expect(migrate('changed', dir)).rejects.toThrow(/was changed after it was applied/);
  });

  it('takes an applied file whose earlier checksum is listed as reworded, and records its new one', async () => {
    const dir = await copyOfGood();
    await migrate('reworded', dir);
    const earlier = await readFile(join(dir, '0002_seed.sql'), 'utf8');
    const reworded = `-- a comment written after the file was applied\n${earlier}`;
    await writeFile(join(dir, '0002_seed.sql'), reworded);
    await expect(migrate('reworded', dir)).rejects.toThrow(/was changed after it was applied/);
    await writeFile(join(dir, 'reworded-checksums.json'), JSON.stringify({ '0002_seed.sql': [sha256(earlier)] }));
    const run = await migrate('reworded', dir);
    expect(run.applied).toEqual([]);
    expect(await query("SELECT checksum FROM reworded.migrations WHERE name = '0002_seed.sql'")).toEqual([
      { checksum: sha256(reworded) },
    ]);
    expect(await query('SELECT reworded.thing_count() AS n')).toEqual([{ n: '2' }]);
    // Only the listed earlier text is taken: a change of what the file does is still refused.
    await writeFile(join(dir, '0002_seed.sql'), "INSERT INTO things (name) VALUES ('c');");
    await expect(migrate('reworded', dir)).rejects.toThrow(/was changed after it was applied/);
  });

  it('refuses a list of reworded checksums it cannot read', async () => {
    const dir = await copyOfGood();
    await writeFile(join(dir, 'reworded-checksums.json'), JSON.stringify({ '0002_seed.sql': 'not a list' }));
    await expect(migrate('unreadable', dir)).rejects.toThrow(/must map migration file names to sha-256 checksums/);
  });

  it('lets concurrent runners on an empty schema produce one history', async () => {
    const runs = await Promise.all(Array.from({ length: 4 }, () => migrate('raced', join(fixtures, 'good'))));
    // Exactly one runner applied the files; the others waited on the lock and found nothing to do.
    expect(runs.map((r) => r.applied.length).sort()).toEqual([0, 0, 0, 2]);
    expect(await query('SELECT count(*)::int AS n FROM raced.things')).toEqual([{ n: 2 }]);
  });
});
