import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type Bus, createBus } from '@orbital/bus';
import { loadConfig } from '@orbital/config';
import { serviceIdentity } from '@orbital/contracts';
import { createApp as createInstallationsApp } from '@orbital/installations/app';
import { configSchema as installationsConfigSchema } from '@orbital/installations/config';
import { createLogger, type Logger } from '@orbital/logger';
import { createApp as createRegistryApp } from '@orbital/satellite-registry/app';
import { configSchema as registryConfigSchema } from '@orbital/satellite-registry/config';
import { createReadiness, startDatabaseOwner } from '@orbital/service';
import { createSettingsApp } from '@orbital/settings/app';
import { settingsConfigSchema } from '@orbital/settings/config';
import { createNatsSettingsSource, createSettingsReader } from '@orbital/settings-client';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildGateway, type GatewayDeps } from '../src/app.ts';
import { createDocsSwitch } from '../src/http/createDocsSwitch.ts';
import { createIdentityModule, type IdentityModule } from '../src/identity/createIdentityModule.ts';
import type { LoginRateLimits } from '../src/identity/createLoginRateLimiter.ts';
import type { FirstAdmin } from '../src/identity/ensureFirstAdmin.ts';
import { createOAuthModule, type OAuthModuleOptions } from '../src/oauth/createOAuthModule.ts';
import type { OAuthLifetimes } from '../src/oauth/oauthServerRoutes.ts';
import { createSatelliteResourceServerAuthenticator } from '../src/oauth/resourceServerAuthenticator.ts';
import { createSatelliteAuthenticator } from '../src/satellites/createSatelliteAuthenticator.ts';

const identityMigrations = join(import.meta.dirname, '../migrations');

/** Every line any part of the stack logged, to search for secrets. */
export type LogCapture = { text(): string; lines(): Array<Record<string, unknown>> };

function createLogCapture(): { capture: LogCapture; stream: Writable } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return {
    stream,
    capture: {
      text: () => text,
      lines: () =>
        text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>),
    },
  };
}

export type GatewayReplica = {
  app: FastifyInstance;
  identity: IdentityModule;
  bus: Bus;
  migrate(): Promise<unknown>;
};

export type IdentityStack = {
  env: TestEnvironment;
  logs: LogCapture;
  logger: Logger;
  gateways: GatewayReplica[];
  /** Starts one more gateway replica on the same NATS, PostgreSQL and Redis. */
  addGateway(overrides?: { trustProxy?: GatewayDeps['trustProxy'] }): Promise<GatewayReplica>;
  stop(): Promise<void>;
};

export type IdentityStackOptions = {
  gateways?: number;
  firstAdmin?: FirstAdmin | null;
  loginRateLimits?: LoginRateLimits;
  now?: () => number;
  sessionTtlMs?: number;
  /** The OAuth issuer (the gateway's public URL): a test that listens picks its port first. */
  issuerUrl?: URL;
  oauthLifetimes?: Partial<OAuthLifetimes>;
  /** How Client ID Metadata Documents are fetched (a test serving them on loopback allows that network). */
  clientMetadataDocuments?: OAuthModuleOptions['clientMetadataDocuments'];
  /** Which proxies every gateway replica trusts for the client address (TRUST_PROXY). */
  trustProxy?: GatewayDeps['trustProxy'];
  /** SSE settings of every gateway replica (stream tests use a short keep-alive and count live streams). */
  sse?: GatewayDeps['sse'];
};

export const adminCredentials: FirstAdmin = {
  email: 'root@orbital.test',
  password: 'first admin pass phrase 4 tests',
  name: 'Root',
};

/**
 * The real stack for identity tests: the settings service (database setup), then gateway replicas
 * built with buildGateway and the identity module, each on its own NATS connection, sharing one
 * PostgreSQL database and one Redis. Database setup runs through POST /api/db/setup while the gateways
 * are up, so the first admin is created the way it is in production.
 */
export async function startIdentityStack(options: IdentityStackOptions = {}): Promise<IdentityStack> {
  const env = await createTestEnvironment();
  const { capture, stream } = createLogCapture();
  const logger = createLogger({ name: 'identity-test', level: 'debug', destination: stream });
  const buses: Bus[] = [];
  const redises: Redis[] = [];
  const newBus = async (name: string) => {
    const bus = await createBus({
      servers: env.natsUrl,
      name,
      prefix: env.subjectPrefix,
      streamMaxBytes: env.streamMaxBytes,
      logger,
      requestTimeoutMs: 3000,
    });
    buses.push(bus);
    return bus;
  };
  await createSettingsApp({
    bus: await newBus('settings'),
    logger,
    config: loadConfig(settingsConfigSchema, {
      ...env.env,
      PERSISTENT_DATA_DIR: await mkdtemp(join(tmpdir(), 'orbital-identity-')),
      DB_SETUP_SERVICE_TIMEOUT_MS: '500',
    }),
  });
  // The registry answers the satellite routes (the access matrix covers them too).
  const registry = await createRegistryApp({
    bus: await newBus('registry'),
    logger,
    config: loadConfig(registryConfigSchema, env.env),
  });
  // The installations service answers the installation routes (commands to the registry wait in its outbox).
  const installations = await createInstallationsApp({
    bus: await newBus('installations'),
    logger,
    config: loadConfig(installationsConfigSchema, { ...env.env, OUTBOX_RETRY_MS: '200' }),
  });
  const gateways: GatewayReplica[] = [];

  async function addGateway(overrides: { trustProxy?: GatewayDeps['trustProxy'] } = {}): Promise<GatewayReplica> {
    const bus = await newBus(`gateway-${gateways.length}`);
    const redis = new Redis(env.redisUrl);
    redises.push(redis);
    let identity: IdentityModule | null = null;
    const satellites = await createSatelliteAuthenticator({ bus, logger });
    const db = await startDatabaseOwner({
      bus,
      owner: 'identity',
      connection: { ...env.postgres, ssl: false },
      migrationsDir: identityMigrations,
      logger,
      onMigrated: () => identity?.afterMigrations() ?? Promise.resolve(),
    });
    identity = await createIdentityModule({
      bus,
      pool: db.pool,
      redis,
      redisKeyPrefix: env.queuePrefix,
      logger,
      firstAdmin: options.firstAdmin === undefined ? adminCredentials : options.firstAdmin,
      ...(options.loginRateLimits ? { loginRateLimits: options.loginRateLimits } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.sessionTtlMs ? { sessionTtlMs: options.sessionTtlMs } : {}),
      satellite: satellites.authenticate,
    });
    if (db.pool.isReady()) await identity.afterMigrations();
    await bus.flush();
    const oauth = createOAuthModule({
      pool: db.pool,
      logger,
      issuerUrl: options.issuerUrl ?? new URL('http://localhost:3000'),
      authenticateResourceServer: createSatelliteResourceServerAuthenticator(satellites.verifyKey),
      ...(options.oauthLifetimes ? { lifetimes: options.oauthLifetimes } : {}),
      ...(options.clientMetadataDocuments !== undefined
        ? { clientMetadataDocuments: options.clientMetadataDocuments }
        : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    const app = await buildGateway({
      ...((overrides.trustProxy ?? options.trustProxy) !== undefined
        ? { trustProxy: overrides.trustProxy ?? options.trustProxy }
        : {}),
      bus,
      logger,
      readiness: createReadiness(),
      identity,
      oauth,
      ...(options.sse ? { sse: options.sse } : {}),
      // As main.ts wires it, with no time-to-live so tests see a change at once.
      docsEnabled: createDocsSwitch({
        read: () =>
          createSettingsReader(createNatsSettingsSource(bus, serviceIdentity('gateway-api'))).boolean(
            'global.enable_swagger_docs',
            true,
          ),
        logger,
        ttlMs: 0,
      }),
    });
    const replica = { app, identity, bus, migrate: db.migrate };
    gateways.push(replica);
    const stop = async () => {
      await app.close();
      satellites.stop();
      await identity.stop();
      await db.pool.end();
    };
    stoppers.push(stop);
    return replica;
  }
  const stoppers: Array<() => Promise<void>> = [];

  for (let i = 0; i < (options.gateways ?? 1); i++) await addGateway();
  const first = gateways[0];
  if (!first) throw new Error('a stack needs a gateway');
  const setup = await first.app.inject({ method: 'POST', url: '/api/db/setup', payload: { type: 'postgresql' } });
  if (setup.statusCode !== 200) throw new Error(`database setup failed: ${setup.body}`);
  // Setup's migrate request reaches one replica of the queue group; the others open their pool when
  // they next start. Here they catch up at once (applying nothing: the history is shared).
  for (const replica of gateways) await replica.migrate();
  await installations.database.migrate();

  return {
    env,
    logs: capture,
    logger,
    gateways,
    addGateway,
    async stop() {
      for (const stop of stoppers) await stop();
      await installations.stop();
      for (const bus of buses) await bus.drain();
      await registry.database.pool.end();
      for (const redis of redises) redis.disconnect();
      await installations.database.pool.end();
      await env.cleanup();
    },
  };
}

export type Session = { token: string; cookie: string; userId: string };

export async function login(app: FastifyInstance, email: string, password: string): Promise<Session> {
  const response = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
  if (response.statusCode !== 200) throw new Error(`login of ${email} failed: ${response.statusCode} ${response.body}`);
  const body = response.json();
  const cookie = response.cookies.find((c) => c.name === 'session');
  if (!cookie) throw new Error('login set no session cookie');
  return { token: body.data.token, cookie: cookie.value, userId: body.data.user.id };
}

export const bearer = (session: Session) => ({ authorization: `Bearer ${session.token}` });
