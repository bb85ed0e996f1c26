import { settingsSubjects as s } from '@orbital/contracts';
import { createTestEnvironment, markDatabaseSetUp, type TestEnvironment } from '@orbital/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminIdentity, clientBus, startReplica } from './settingsHarness.ts';

let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment();
});
afterAll(() => env.cleanup());

describe('the category column of an older version', () => {
  it('is renamed group_id at start, keeping every row and value', async () => {
    // A database as an older version left it: settings grouped by `category`, no groups table.
    const c = new pg.Client({ ...env.postgres });
    await c.connect();
    await c.query(`CREATE SCHEMA settings;
      CREATE TABLE settings.settings (
        key text PRIMARY KEY, value text NOT NULL, description text,
        is_encrypted boolean NOT NULL DEFAULT false, category text,
        created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
      INSERT INTO settings.settings (key, value, category) VALUES
        ('smtp.host', 'mail.old.example.org', 'smtp'),
        ('legacy.flag', 'on', 'legacy'),
        ('loose.key', 'x', NULL);`);
    await c.end();
    await markDatabaseSetUp(env);

    const replica = await startReplica(env);
    const client = await clientBus(env);
    try {
      const check = new pg.Client({ ...env.postgres });
      await check.connect();
      const columns = (
        await check.query(
          "SELECT column_name FROM information_schema.columns WHERE table_schema = 'settings' AND table_name = 'settings' ORDER BY column_name",
        )
      ).rows.map((r) => r.column_name);
      await check.end();
      expect(columns).toContain('group_id');
      expect(columns).not.toContain('category');

      // The old value survives initialisation (existing settings are skipped, not overwritten).
      expect(await client.request(s.getSetting, { key: 'smtp.host' }, { identity: adminIdentity })).toMatchObject({
        value: 'mail.old.example.org',
        group_id: 'smtp',
      });
      expect(await client.request(s.getSetting, { key: 'legacy.flag' }, { identity: adminIdentity })).toMatchObject({
        value: 'on',
        group_id: 'legacy',
      });
      // Old categories became groups, next to the built-in ones.
      const groups = (await client.request(s.listGroups, {}, { identity: adminIdentity })).map((g) => g.id);
      expect(groups).toEqual(expect.arrayContaining(['legacy', 'smtp', 'global', 'repohost-oauth']));
    } finally {
      await client.drain();
      await replica.stop();
    }
  });
});
