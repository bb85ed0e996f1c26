import { readdirSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp as createInstallationsApp } from '@orbital/installations/app';
import { configSchema as installationsConfig } from '@orbital/installations/config';
import { createLogger } from '@orbital/logger';
import { createApp as createRegistryApp } from '@orbital/satellite-registry/app';
import { configSchema as registryConfig } from '@orbital/satellite-registry/config';
import { createSettingsApp } from '@orbital/settings/app';
import { settingsConfigSchema } from '@orbital/settings/config';
import {
  createTestBuses,
  createTestEnvironment,
  startServiceUnderTest,
  type TestBuses,
  type TestEnvironment,
} from '@orbital/testing';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestGateway } from './startTestGateway.ts';

const logger = createLogger({ name: 'db-setup-test', level: 'silent' });
const identityMigrations = join(import.meta.dirname, '../migrations');

type Stack = {
  env: TestEnvironment;
  gateway: FastifyInstance;
  buses: TestBuses;
  dataDir: string;
  /** Stopped in the order they started, once the gateway has stopped. */
  services: Array<{ stop(): Promise<void> }>;
  /** Stops the gateway as main.ts does, before the services. */
  stopGateway(): Promise<void>;
};

const migrationFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
const expectedMigrations = {
  settings: migrationFiles(join(import.meta.dirname, '../../settings/migrations')),
  identity: migrationFiles(identityMigrations),
  registry: migrationFiles(join(import.meta.dirname, '../../satellite-registry/migrations')),
  installations: migrationFiles(join(import.meta.dirname, '../../installations/migrations')),
};
let stack: Stack;

/** A registry replica on the stack's buses, configured from its environment. */
const startRegistry = (env: TestEnvironment, buses: TestBuses, name = 'registry') =>
  startServiceUnderTest({
    env,
    name,
    logger,
    buses,
    configSchema: registryConfig,
    create: createRegistryApp,
    stopApp: (app) => app.stop(),
    release: (app) => app.database.pool.end(),
  });

const startInstallations = (env: TestEnvironment, buses: TestBuses, name = 'installations') =>
  startServiceUnderTest({
    env,
    name,
    logger,
    buses,
    configSchema: installationsConfig,
    create: createInstallationsApp,
    release: (app) => app.database.pool.end(),
  });

/** The backend in one process, each service on its own NATS connection as it would be in its own process. */
async function startStack(options: { withInstallations?: boolean; env?: TestEnvironment } = {}): Promise<Stack> {
  const env = options.env ?? (await createTestEnvironment());
  const dataDir = await mkdtemp(join(tmpdir(), 'orbital-data-'));
  const buses = createTestBuses(env, logger, { requestTimeoutMs: 2000 });
  const services: Stack['services'] = [
    await startServiceUnderTest({
      env,
      name: 'settings',
      logger,
      buses,
      configSchema: settingsConfigSchema,
      configEnv: { PERSISTENT_DATA_DIR: dataDir, DB_SETUP_SERVICE_TIMEOUT_MS: '1500' },
      create: createSettingsApp,
      stopApp: (app) => app.stop(),
      release: (app) => app.database.pool.end(),
    }),
    await startRegistry(env, buses),
  ];
  if (options.withInstallations !== false) services.push(await startInstallations(env, buses));
  // gateway-api owns the identity schema, which setup migrates with the others.
  const gateway = await startTestGateway({ env, bus: await buses.connect('gateway'), logger });
  await buses.flush();
  return { env, gateway: gateway.app, buses, dataDir, services, stopGateway: gateway.stop };
}

async function stopStack(s: Stack, options: { keepDatabase?: boolean } = {}) {
  await s.stopGateway();
  for (const service of s.services) await service.stop();
  await s.buses.drain();
  if (!options.keepDatabase) await s.env.cleanup();
}

async function migrationsOf(env: TestEnvironment): Promise<Record<string, string[]>> {
  const client = new pg.Client({ ...env.postgres });
  await client.connect();
  try {
    const result: Record<string, string[]> = {};
    for (const schema of ['settings', 'identity', 'registry', 'installations']) {
      const exists = await client.query(`SELECT to_regclass('${schema}.migrations') IS NOT NULL AS present`);
      if (!exists.rows[0].present) continue;
      result[schema] = (await client.query(`SELECT name FROM ${schema}.migrations ORDER BY name`)).rows.map(
        (r) => r.name,
      );
    }
    return result;
  } finally {
    await client.end();
  }
}

describe('database setup through gateway-api', () => {
  beforeEach(async () => {
    stack = await startStack();
  });
  afterEach(async () => {
    await stopStack(stack);
  });

  it('reports configured but not initialised before setup', async () => {
    const response = await stack.gateway.inject({ method: 'GET', url: '/api/db/status' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ configured: true, initialized: false, dialect: 'postgresql' });
    expect(await migrationsOf(stack.env)).toEqual({});
  });

  it('initialises every service schema, writes the selection record, and refuses a second setup', async () => {
    const response = await stack.gateway.inject({
      method: 'POST',
      url: '/api/db/setup',
      payload: { type: 'postgresql' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      message: expect.stringContaining('all services are initialised and ready'),
      restart_required: false,
      database_type: 'postgresql',
    });
    expect(await migrationsOf(stack.env)).toEqual(expectedMigrations);
    const record = JSON.parse(await readFile(join(stack.dataDir, 'db.selection.json'), 'utf8'));
    expect(record).toEqual({ type: 'postgresql', selectedAt: expect.any(String), version: '1.0' });
    expect(Number.isNaN(Date.parse(record.selectedAt))).toBe(false);

    const status = await stack.gateway.inject({ method: 'GET', url: '/api/db/status' });
    expect(status.json()).toEqual({ configured: true, initialized: true, dialect: 'postgresql' });

    const again = await stack.gateway.inject({ method: 'POST', url: '/api/db/setup', payload: { type: 'postgresql' } });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ success: false, error: { code: 'conflict' } });
  });

  it('opens the database on every replica, not only the one that ran the migrations', async () => {
    const replicas = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const replica = await startRegistry(stack.env, stack.buses, `registry-extra-${n}`);
        stack.services.push(replica);
        return replica.app;
      }),
    );
    expect(replicas.every((r) => !r.database.pool.isReady())).toBe(true);
    const response = await stack.gateway.inject({
      method: 'POST',
      url: '/api/db/setup',
      payload: { type: 'postgresql' },
    });
    expect(response.statusCode).toBe(200);
    // The migrate request reached one registry replica; the setup-completed broadcast reaches the rest.
    await vi.waitFor(() => expect(replicas.every((r) => r.database.pool.isReady())).toBe(true), { timeout: 5000 });
  });

  it('lets two simultaneous setups produce one setup', async () => {
    const [a, b] = await Promise.all([
      stack.gateway.inject({ method: 'POST', url: '/api/db/setup', payload: { type: 'postgresql' } }),
      stack.gateway.inject({ method: 'POST', url: '/api/db/setup', payload: { type: 'postgresql' } }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
  });

  it.each([
    ['no body', undefined],
    ['another database type', { type: 'mysql' }],
    ['a type of the wrong kind', { type: 5 }],
    ['extra fields', { type: 'postgresql', host: 'elsewhere' }],
    ['an array', [{ type: 'postgresql' }]],
  ])('answers 400 with the envelope for %s, and sets nothing up', async (_name, payload) => {
    const response = await stack.gateway.inject({
      method: 'POST',
      url: '/api/db/setup',
      ...(payload === undefined ? {} : { payload }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      success: false,
      error: { code: 'validation_failed', message: expect.any(String) },
    });
    expect(await migrationsOf(stack.env)).toEqual({});
  });

  it('names the only supported type when another is asked for', async () => {
    const response = await stack.gateway.inject({ method: 'POST', url: '/api/db/setup', payload: { type: 'sqlite' } });
    expect(JSON.stringify(response.json())).toContain('type must be \\"postgresql\\"');
  });

  it('answers 400 for a body that is not JSON', async () => {
    const response = await stack.gateway.inject({
      method: 'POST',
      url: '/api/db/setup',
      headers: { 'content-type': 'application/json' },
      payload: '{"type":',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error: { code: 'validation_failed' } });
  });
});

describe('database setup with a service down', () => {
  it('answers restart_required, and the late service migrates when it starts', async () => {
    const partial = await startStack({ withInstallations: false });
    const response = await partial.gateway.inject({
      method: 'POST',
      url: '/api/db/setup',
      payload: { type: 'postgresql' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ restart_required: true, message: expect.stringContaining('restart') });
    expect(Object.keys(await migrationsOf(partial.env)).sort()).toEqual(['identity', 'registry', 'settings']);

    // The installations service starts later: it reads the setup record and applies its migrations.
    partial.services.push(await startInstallations(partial.env, partial.buses, 'installations-late'));
    expect((await migrationsOf(partial.env)).installations).toEqual(expectedMigrations.installations);
    await stopStack(partial);
  });
});
