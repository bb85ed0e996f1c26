import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bus } from '@orbital/bus';
import { createApp as createInstallationsApp } from '@orbital/installations/app';
import { configSchema as installationsConfigSchema } from '@orbital/installations/config';
import { createLogger, type Logger } from '@orbital/logger';
import { createApp as createRegistryApp } from '@orbital/satellite-registry/app';
import { configSchema as registryConfigSchema } from '@orbital/satellite-registry/config';
import { createSettingsApp } from '@orbital/settings/app';
import { settingsConfigSchema } from '@orbital/settings/config';
import type { LiveStreams } from '@orbital/sse';
import {
  captureLog,
  createTestBuses,
  createTestEnvironment,
  type LogCapture,
  type ServiceUnderTestOptions,
  startServiceUnderTest,
  type TestEnvironment,
} from '@orbital/testing';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { GatewayOptions } from '../src/createGateway.ts';
import type { FirstAdmin, IdentityModule, LoginRateLimits } from '../src/identity/index.ts';
import { startTestGateway } from './startTestGateway.ts';

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
  /** The first replica's app: what a test of one gateway calls. */
  app: FastifyInstance;
  /** Starts one more gateway replica on the same NATS, PostgreSQL and Redis. */
  addGateway(overrides?: { env?: Record<string, string> }): Promise<GatewayReplica>;
  /** Stops the settings service for good (the database setup and the audit log go with it). */
  stopSettings(): Promise<void>;
  stop(): Promise<void>;
};

export type IdentityStackOptions = {
  gateways?: number;
  firstAdmin?: FirstAdmin | null;
  loginRateLimits?: LoginRateLimits;
  /** The mail sender's pace and SMTP TLS options, and the limits of requests that send mail. */
  mail?: NonNullable<GatewayOptions['tuning']>['mail'];
  mailRequestLimits?: NonNullable<GatewayOptions['tuning']>['mailRequestLimits'];
  now?: () => number;
  sessionTtlHours?: number;
  /** The OAuth issuer (the gateway's public URL): a test that listens picks its port first. */
  issuerUrl?: URL;
  /** More of gateway-api's environment, as a deployment sets it (TRUST_PROXY, OAUTH_CLIENT_METADATA_*...). */
  env?: Record<string, string>;
  /** More of the installations service's environment (the remote OAuth flow's networks, for one). */
  installationsEnv?: Record<string, string>;
  /** SSE settings of every gateway replica (stream tests use a short keep-alive and count live streams). */
  sse?: { live: LiveStreams; keepAliveMs: number; retryMs: number };
};

/** A service app as the stack stops it: the app itself, then its database pool. */
type ServiceWithDatabase = { stop(): Promise<void>; database: { pool: { end(): Promise<void> } } };

export const adminCredentials: FirstAdmin = {
  email: 'root@orbital.test',
  password: 'first admin pass phrase 4 tests',
  name: 'Root',
};

/**
 * The real stack for identity tests: the settings service (database setup), then gateway replicas
 * built through createGateway as main.ts builds them, each on its own NATS connection, sharing one
 * PostgreSQL database and one Redis. Database setup runs through POST /api/db/setup while the gateways
 * are up, so the first admin is created the way it is in production.
 */
export async function startIdentityStack(options: IdentityStackOptions = {}): Promise<IdentityStack> {
  const env = await createTestEnvironment();
  // Every line any part of the stack logged, to search for secrets.
  const capture = captureLog();
  const logger = createLogger({ name: 'identity-test', level: 'debug', destination: capture.stream });
  const buses = createTestBuses(env, logger, { requestTimeoutMs: 3000 });
  // Every service of the stack starts on its environment, connections and logger, and stops as its
  // main.ts does: its app, then (its connection drained) its database pool.
  const startService = <Schema extends z.ZodType, App extends ServiceWithDatabase>(
    service: Pick<ServiceUnderTestOptions<Schema, App>, 'name' | 'configSchema' | 'configEnv' | 'create'>,
  ) =>
    startServiceUnderTest({
      env,
      logger,
      buses,
      ...service,
      stopApp: (app) => app.stop(),
      release: (app) => app.database.pool.end(),
    });
  const settings = await startService({
    name: 'settings',
    configSchema: settingsConfigSchema,
    configEnv: {
      PERSISTENT_DATA_DIR: await mkdtemp(join(tmpdir(), 'orbital-identity-')),
      DB_SETUP_SERVICE_TIMEOUT_MS: '500',
    },
    create: createSettingsApp,
  });
  // The registry answers the satellite routes (the access matrix covers them too).
  const registry = await startService({
    name: 'registry',
    configSchema: registryConfigSchema,
    create: createRegistryApp,
  });
  // The installations service answers the installation routes (commands to the registry wait in its outbox).
  const installations = await startService({
    name: 'installations',
    configSchema: installationsConfigSchema,
    configEnv: { OUTBOX_RETRY_MS: '200', ...options.installationsEnv },
    create: createInstallationsApp,
  });
  let settingsStopped: Promise<void> | null = null;
  const stopSettings = () => {
    settingsStopped ??= settings.stop();
    return settingsStopped;
  };
  const gateways: GatewayReplica[] = [];

  async function addGateway(overrides: { env?: Record<string, string> } = {}): Promise<GatewayReplica> {
    const bus = await buses.connect(`gateway-${gateways.length}`);
    const admin = options.firstAdmin === undefined ? adminCredentials : options.firstAdmin;
    const gateway = await startTestGateway({
      env,
      bus,
      logger,
      configEnv: {
        ...(admin ? { ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password, ADMIN_NAME: admin.name } : {}),
        ...(options.sessionTtlHours ? { SESSION_TTL_HOURS: String(options.sessionTtlHours) } : {}),
        OAUTH_ISSUER_URL: (options.issuerUrl ?? new URL('http://localhost:3000')).toString(),
        ...(options.sse
          ? { SSE_KEEPALIVE_MS: String(options.sse.keepAliveMs), SSE_RETRY_MS: String(options.sse.retryMs) }
          : {}),
        ...options.env,
        ...overrides.env,
      },
      tuning: {
        ...(options.now ? { now: options.now } : {}),
        ...(options.loginRateLimits ? { loginRateLimits: options.loginRateLimits } : {}),
        ...(options.mail ? { mail: options.mail } : {}),
        ...(options.mailRequestLimits ? { mailRequestLimits: options.mailRequestLimits } : {}),
        ...(options.sse ? { liveStreams: options.sse.live } : {}),
        // No time-to-live, so tests see a settings change at once.
        docsTtlMs: 0,
      },
    });
    await bus.flush();
    const replica = { app: gateway.app, identity: gateway.identity, bus, migrate: gateway.migrateIdentity };
    gateways.push(replica);
    stoppers.push(gateway.stop);
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
  await installations.app.database.migrate();

  return {
    env,
    logs: capture,
    logger,
    gateways,
    app: first.app,
    addGateway,
    stopSettings,
    async stop() {
      for (const stop of stoppers) await stop();
      await installations.stop();
      await registry.stop();
      await stopSettings();
      await buses.drain();
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

/** A person the admin creates over HTTP and makes a member of `teamId` with `role`, signed in. */
export async function addSignedInMember(
  app: FastifyInstance,
  admin: Session,
  teamId: string,
  role: 'team_admin' | 'team_user',
  person: { email: string; password: string; name: string },
): Promise<Session> {
  const asAdmin = callerAs(app, admin);
  const created = await asAdmin('POST', '/api/users', person);
  if (created.statusCode !== 201) throw new Error(`user creation failed: ${created.statusCode} ${created.body}`);
  const added = await asAdmin('POST', `/api/teams/${teamId}/members`, { user_id: created.json().data.id, role });
  if (added.statusCode !== 201) throw new Error(`adding a member failed: ${added.statusCode} ${added.body}`);
  return login(app, person.email, person.password);
}

/** The first global admin's session, as most tests act. */
export const loginAdmin = (app: FastifyInstance) => login(app, adminCredentials.email, adminCredentials.password);

/** One gateway with the first admin signed in, for tests of what the admin does over HTTP. */
export async function startAdminStack(options: IdentityStackOptions = {}) {
  const stack = await startIdentityStack(options);
  return { stack, app: stack.app, call: callerAs(stack.app, await loginAdmin(stack.app)) };
}
export type AdminStack = Awaited<ReturnType<typeof startAdminStack>>;

/** Calls on an app as one person: their bearer token on every request, the body as JSON when there is one. */
export function callerAs(app: FastifyInstance, session: Session) {
  return (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    app.inject({
      method,
      url,
      headers: bearer(session),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}

export const bearer = (session: Session) => ({ authorization: `Bearer ${session.token}` });
