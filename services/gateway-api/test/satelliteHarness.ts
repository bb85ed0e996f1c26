import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bus } from '@orbital/bus';
import { loadConfig } from '@orbital/config';
import {
  type CallerIdentity,
  type InstallationConfigRecord,
  registrySubjects,
  serviceIdentity,
} from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import type { RegistryApp } from '@orbital/satellite-registry/app';
import {
  connectToRegistrySchema,
  globalAdmin,
  heartbeatBody,
  satelliteBody,
  startRegistryUnderTest,
  type TestClock,
} from '@orbital/satellite-registry/testing';
import { createMetrics, createReadiness, type ServiceMetrics } from '@orbital/service';
import { createSettingsApp, type SettingsApp } from '@orbital/settings/app';
import { settingsConfigSchema } from '@orbital/settings/config';
import {
  createTestBuses,
  createTestEnvironment,
  markDatabaseSetUp,
  type ServiceUnderTest,
  startServiceUnderTest,
  startTcpProxy,
  type TcpProxy,
  type TestEnvironment,
} from '@orbital/testing';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { gatewayConfigSchema } from '../src/config.ts';
import { createGateway, type Gateway, type GatewayOptions } from '../src/createGateway.ts';

export { globalAdmin, heartbeatBody, satelliteBody, teamMember } from '@orbital/satellite-registry/testing';

export const logger = createLogger({ name: 'satellite-test', level: 'silent' });

/**
 * The registry's heartbeatBody reporting `processes`, with the system's process counts counted from them
 * (its own counts describe its own one running process).
 */
export function heartbeatWithProcesses(processes: Array<{ status: string }>) {
  const body = heartbeatBody({ processes });
  const count = (status: string) => processes.filter((p) => p.status === status).length;
  const process_counts = { total: processes.length, running: count('running'), failed: count('failed') };
  return { ...body, system: { ...body.system, process_counts } };
}

/**
 * The registry and gateway-api on real PostgreSQL and NATS, each on its own connection, plus a real
 * NATS responder for `installations.config.for_satellite` serving fixture installations (the
 * installations service does not serve it yet). The registry's clock is `clock`, moved by tests.
 */
export type SatelliteStack = {
  env: TestEnvironment;
  gateway: FastifyInstance;
  /** The replica `gateway` is, to stop it (a gateway-api outage) before the stack stops. */
  firstReplica: GatewayReplica;
  registry: RegistryApp;
  /** The real settings service, when asked for (`settings: true`); otherwise nothing answers `settings.*`. */
  settings: SettingsApp | undefined;
  adminBus: Bus;
  satellites: Gateway['satellites'];
  /**
   * Another gateway-api on the same stack, as a replica or a restarted process is: its own bus connection,
   * Redis connection, metrics and caches (nothing known yet), and more of its environment when given (a
   * limit a test lowers). Stopped with the stack, or before by the test.
   */
  startReplica(tuning?: GatewayOptions['tuning'], configEnv?: Record<string, string>): Promise<GatewayReplica>;
  clock: TestClock;
  installations: InstallationConfigRecord[];
  installationRequests: Array<{ team_ids: string[] | null }>;
  db: pg.Client;
  /** Between the registry and PostgreSQL, when asked for (`registryDatabaseProxy: true`), to cut it. */
  registryDatabase: TcpProxy | undefined;
  stop(): Promise<void>;
};

export type GatewayReplica = {
  app: FastifyInstance;
  satellites: Gateway['satellites'];
  metrics: ServiceMetrics;
  stop(): Promise<void>;
};

export async function startSatelliteStack(
  options: {
    settings?: boolean;
    registryDatabaseProxy?: boolean;
    /** How long gateway-api serves a known satellite key before confirming it with the registry. */
    keyConfirmAfterMs?: number;
    /** More of the registry's environment (its offline watch's pace, for one). */
    registryEnv?: Record<string, string>;
  } = {},
): Promise<SatelliteStack> {
  const env = await createTestEnvironment();
  const registryDatabase = options.registryDatabaseProxy ? await startTcpProxy(env.postgres) : undefined;
  const registryPostgres: Record<string, string> = registryDatabase
    ? { POSTGRES_HOST: registryDatabase.host, POSTGRES_PORT: String(registryDatabase.port) }
    : {};
  const buses = createTestBuses(env, logger);
  const bus = (name: string) => buses.connect(name);
  const { registry, clock, installations, installationRequests } = await startRegistryUnderTest({
    env,
    buses,
    logger,
    configEnv: { ...registryPostgres, ...options.registryEnv },
  });
  let settings: ServiceUnderTest<SettingsApp> | undefined;
  if (options.settings) {
    // Set up already, so the settings service migrates and loads its definitions at start.
    await markDatabaseSetUp(env);
    settings = await startServiceUnderTest({
      env,
      name: 'settings',
      logger,
      buses,
      configSchema: settingsConfigSchema,
      configEnv: { PERSISTENT_DATA_DIR: await mkdtemp(join(tmpdir(), 'orbital-satellite-settings-')) },
      create: createSettingsApp,
      stopApp: (app) => app.stop(),
      release: (app) => app.database.pool.end(),
    });
  }

  // gateway-api as main.ts builds it: identity resolves every route's access, satellites through the
  // API-key authenticator, event batches through the rate limiter. Each replica has its own connections
  // and metrics, as a process of its own would.
  const replicas: GatewayReplica[] = [];
  const startReplica = async (
    tuning: GatewayOptions['tuning'] = {},
    configEnv: Record<string, string> = {},
  ): Promise<GatewayReplica> => {
    const redis = new Redis(env.redisUrl);
    const metrics = createMetrics('gateway-api');
    const replicaBus = await bus(`gateway-${replicas.length}`);
    const built = await createGateway({
      config: loadConfig(gatewayConfigSchema, {
        ...env.env,
        ADMIN_EMAIL: adminCredentials.email,
        ADMIN_PASSWORD: adminCredentials.password,
        ADMIN_NAME: adminCredentials.name,
        ...configEnv,
      }),
      bus: replicaBus,
      logger,
      redis,
      metrics,
      readiness: createReadiness(),
      tuning: {
        ...(options.keyConfirmAfterMs ? { satelliteKeyConfirmAfterMs: options.keyConfirmAfterMs } : {}),
        ...tuning,
      },
    });
    // Its subscriptions are in place before it is used (a stopped replica's connection is closed).
    await replicaBus.flush();
    let stopped = false;
    const replica: GatewayReplica = {
      app: built.app,
      satellites: built.satellites,
      metrics,
      async stop() {
        if (stopped) return;
        stopped = true;
        // As the process does: stops its work, leaves NATS (its subscriptions go), then closes its pools.
        for (const step of built.beforeDrain) await step.run();
        await replicaBus.drain();
        for (const step of built.afterDrain) await step.run();
        redis.disconnect();
      },
    };
    replicas.push(replica);
    // Opens the replica's identity pool (the first applies the migrations; later ones find them applied).
    await built.migrateIdentity();
    return replica;
  };
  const first = await startReplica();
  const adminBus = await bus('admin');
  await buses.flush();
  const db = await connectToRegistrySchema(env);
  return {
    env,
    gateway: first.app,
    firstReplica: first,
    registry: registry.app,
    settings: settings?.app,
    adminBus,
    satellites: first.satellites,
    startReplica,
    clock,
    installations,
    installationRequests,
    db,
    registryDatabase,
    async stop() {
      for (const replica of replicas) await replica.stop();
      await db.end();
      await settings?.stop();
      await registry.stop();
      await buses.drain();
      await registryDatabase?.close();
      await env.cleanup();
    },
  };
}

export const adminCredentials = {
  email: 'root@orbital.test',
  password: 'first admin pass phrase 4 tests',
  name: 'Root',
};

export const platform = serviceIdentity('installations');

export async function createToken(
  stack: SatelliteStack,
  target: { scope: 'global' } | { scope: 'team'; team_id: string },
  identity: CallerIdentity = globalAdmin,
  expiresInMinutes = 60,
) {
  return stack.adminBus.request(
    registrySubjects.createToken,
    { target, options: { expires_in_minutes: expiresInMinutes } },
    { identity },
  );
}

export async function registerWith(stack: SatelliteStack, authorization: string | undefined, body: object) {
  return stack.gateway.inject({
    method: 'POST',
    url: '/api/satellites/register',
    headers: authorization === undefined ? {} : { authorization },
    payload: body,
  });
}

export type Registered = { id: string; apiKey: string };

export async function registerSatellite(
  stack: SatelliteStack,
  target: { scope: 'global' } | { scope: 'team'; team_id: string },
  name = 'sat',
): Promise<Registered> {
  const token = await createToken(stack, target);
  const response = await registerWith(stack, token.authorization, satelliteBody(name));
  if (response.statusCode !== 201) throw new Error(`registration failed: ${response.body}`);
  const { data } = response.json();
  return { id: data.satellite_id, apiKey: data.api_key };
}

export async function call(
  stack: SatelliteStack,
  satellite: Registered,
  method: 'GET' | 'POST',
  path: string,
  payload?: object,
  options: { remoteAddress?: string; apiKey?: string } = {},
) {
  return stack.gateway.inject({
    method,
    url: `/api/satellites/${path}`,
    headers: { authorization: `Bearer ${options.apiKey ?? satellite.apiKey}` },
    ...(payload ? { payload } : {}),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}

export async function activate(stack: SatelliteStack, satellite: Registered) {
  const response = await call(stack, satellite, 'POST', `${satellite.id}/heartbeat`, heartbeatBody());
  if (response.statusCode !== 200) throw new Error(`heartbeat failed: ${response.body}`);
}

export async function poll(stack: SatelliteStack, satellite: Registered, limit?: number) {
  const response = await call(stack, satellite, 'GET', `${satellite.id}/commands${limit ? `?limit=${limit}` : ''}`);
  if (response.statusCode !== 200) throw new Error(`poll failed: ${response.statusCode} ${response.body}`);
  return response.json().data as {
    commands: Array<{ id: string; priority: string; command_type: string; payload: { team_id: string } }>;
    polling: { mode: string; next_poll_ms: number };
  };
}

export async function queueCommand(stack: SatelliteStack, request: Record<string, unknown>) {
  return stack.adminBus.request(registrySubjects.createCommand, request as never, { identity: platform });
}
