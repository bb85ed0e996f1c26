import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ChildService,
  createTestEnvironment,
  freePort,
  startServiceProcess,
  type TestEnvironment,
} from '@orbital/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The real processes, as `npm start` runs them: a service that dies makes the gateway answer 503
 * `unavailable` at once, never hang; replicas starting together share one migration history.
 */
let env: TestEnvironment;
const children: ChildService[] = [];
let baseUrl: string;

async function start(entry: string, extra: Record<string, string> = {}) {
  const child = await startServiceProcess(entry, { ...env.env, ...extra });
  children.push(child);
  return child;
}

beforeAll(async () => {
  env = await createTestEnvironment();
  const port = String(await freePort());
  baseUrl = `http://127.0.0.1:${port}`;
  await start('services/gateway-api/src/main.ts', { PORT: port, HOST: '127.0.0.1' });
});

afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  await env.cleanup();
});

describe('the platform as processes', () => {
  it('answers 503 unavailable while the settings service is down, and recovers when it is back', async () => {
    const down = await fetch(`${baseUrl}/api/db/status`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ success: false, error: { code: 'unavailable' } });

    const settings = await start('services/settings/src/main.ts');
    const up = await fetch(`${baseUrl}/api/db/status`);
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ configured: true, initialized: false, dialect: 'postgresql' });

    expect(await settings.stop()).toBe(0);
    const again = await fetch(`${baseUrl}/api/db/status`);
    expect(again.status).toBe(503);
  });

  it('applies migrations once when the stack restarts after setup, with replicas starting together', async () => {
    await start('services/settings/src/main.ts');
    const setup = await fetch(`${baseUrl}/api/db/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'postgresql' }),
    });
    // registry and installations are not running: setup completes and asks for a restart.
    expect(setup.status).toBe(200);
    expect(await setup.json()).toMatchObject({ restart_required: true });

    // Two replicas of each late service start at the same moment against the set-up database.
    const replicas = await Promise.all([
      start('services/satellite-registry/src/main.ts'),
      start('services/satellite-registry/src/main.ts'),
      start('services/installations/src/main.ts'),
      start('services/installations/src/main.ts'),
    ]);
    const client = new pg.Client({ ...env.postgres });
    await client.connect();
    const dirs = {
      registry: 'services/satellite-registry/migrations',
      installations: 'services/installations/migrations',
      settings: 'services/settings/migrations',
      identity: 'services/gateway-api/migrations',
    };
    for (const [schema, dir] of Object.entries(dirs)) {
      const rows = (await client.query(`SELECT name FROM ${schema}.migrations ORDER BY name`)).rows;
      // Each file once: no duplicate rows however many replicas raced.
      expect(rows.map((r) => r.name)).toEqual(
        readdirSync(join(import.meta.dirname, '..', dir))
          .filter((f) => f.endsWith('.sql'))
          .sort(),
      );
    }
    await client.end();
    // Stopped with SIGTERM, each drains and exits cleanly.
    expect(await Promise.all(replicas.map((r) => r.stop()))).toEqual([0, 0, 0, 0]);
  });
});
