import { fileURLToPath } from 'node:url';
import { type AuditRelay, createAuditRelay, recordAudit } from '@orbital/audit';
import type { Bus } from '@orbital/bus';
import { serviceIdentity } from '@orbital/contracts';
import { postgresConnectionFromEnv } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import {
  isRedisReady,
  type Readiness,
  type ServiceMetrics,
  type ShutdownStep,
  startDatabaseOwner,
} from '@orbital/service';
import { createNatsSettingsSource, createSettingsReader, withLastKnownValues } from '@orbital/settings-client';
import type { LiveStreams } from '@orbital/sse';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { buildGateway } from './app.ts';
import type { GatewayConfig } from './config.ts';
import { createEventRateLimiter } from './events/createEventRateLimiter.ts';
import { createDocsSwitch } from './http/createDocsSwitch.ts';
import {
  createIdentityModule,
  firstAdminFromConfig,
  type IdentityModule,
  type IdentityModuleOptions,
  type LoginRateLimits,
} from './identity/index.ts';
import { createOAuthModule, createSatelliteResourceServerAuthenticator } from './oauth/index.ts';
import { createSatelliteAuthenticator } from './satellites/createSatelliteAuthenticator.ts';
import { createSsoModule } from './sso/index.ts';

type SatelliteAuthentication = Awaited<ReturnType<typeof createSatelliteAuthenticator>>;

const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

export type GatewayOptions = {
  config: GatewayConfig;
  bus: Bus;
  logger: Logger;
  /** Login and event-batch rate limits, shared by every replica. */
  redis: Redis;
  /** The process's readiness checks; the gateway adds its database and its HTTP listener's. */
  readiness: Readiness;
  metrics?: ServiceMetrics;
  /**
   * What tests tune and production leaves at its defaults: the clock of sessions and OAuth, the login
   * limits, the live-stream registry they count, how long the docs switch trusts its last read, how
   * long a revocation waits for other replicas.
   */
  tuning?: {
    now?: () => number;
    loginRateLimits?: LoginRateLimits;
    /** The mail sender's pace and SMTP TLS options, and the limits of requests that send mail. */
    mail?: IdentityModuleOptions['mail'];
    mailRequestLimits?: IdentityModuleOptions['mailRequestLimits'];
    liveStreams?: LiveStreams;
    docsTtlMs?: number;
    replicaAckTimeoutMs?: number;
    /** How long a known satellite key is served before it is confirmed with the registry again. */
    satelliteKeyConfirmAfterMs?: number;
    /** The bounds of the queue of Argon2 runs for keys the registry has no digest of (argon2Queue). */
    satelliteKeyArgon2?: { concurrency?: number; maxWaiting?: number; maxWaitMs?: number };
  };
};

export type Gateway = {
  app: FastifyInstance;
  identity: IdentityModule;
  /** Satellite API-key verification and its cache (kept coherent across replicas by broadcast). */
  satellites: SatelliteAuthentication;
  /** Delivers the audit entries gateway-api records (identity, OAuth) to the audit log. */
  auditRelay: AuditRelay;
  /** Applies identity's pending migrations now (database setup normally asks for it). */
  migrateIdentity(): Promise<unknown>;
  /** Shutdown, in order: before the bus is drained (stop taking requests), and after (close the pools). */
  beforeDrain: ShutdownStep[];
  afterDrain: ShutdownStep[];
};

/**
 * gateway-api, wired: the identity schema and module, satellite authentication, the OAuth server, the
 * event-batch rate limiter, the documentation switch and every route. The one composition root, used
 * by main.ts and by the tests, so tests run the app production runs; it reads no environment (the
 * config comes parsed) and does not listen.
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { config, bus, logger, redis } = options;
  const tuning = options.tuning ?? {};
  // Checked before anything starts: a weak or half-given first admin is a configuration error.
  const firstAdmin = firstAdminFromConfig(config);
  let identity: IdentityModule | null = null;
  // gateway-api owns the identity schema: authentication happens at the edge. The first admin is
  // created right after identity's migrations are applied, at start or when setup runs later.
  const identityDb = await startDatabaseOwner({
    bus,
    owner: 'identity',
    connection: postgresConnectionFromEnv(config),
    migrationsDir,
    logger,
    onMigrated: () => identity?.afterMigrations() ?? Promise.resolve(),
  });
  // Reported, not gating: every replica shares PostgreSQL and Redis, and an unready replica leaves the
  // Service. The routes that need either answer 503 themselves while it is away; event intake (NATS),
  // known sessions and known satellite keys go on, and would stop with the probe.
  options.readiness.add('database', identityDb.isReachable, { gates: false });
  options.readiness.add('redis', () => isRedisReady(redis), { gates: false });
  // Identity and OAuth record their actions in identity's audit_outbox; this delivers them.
  const auditRelay = createAuditRelay({ pool: identityDb.pool, bus, logger, source: 'gateway-api' });
  auditRelay.start();
  const satellites = await createSatelliteAuthenticator({
    bus,
    logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(tuning.satelliteKeyConfirmAfterMs ? { confirmAfterMs: tuning.satelliteKeyConfirmAfterMs } : {}),
    ...(tuning.satelliteKeyArgon2 ? { argon2: tuning.satelliteKeyArgon2 } : {}),
  });
  // Platform settings, read through on every use (a change holds at once on every replica), the last
  // value read standing in while the settings service is unreachable.
  const settings = createSettingsReader(
    withLastKnownValues(createNatsSettingsSource(bus, serviceIdentity('gateway-api'))),
  );
  identity = await createIdentityModule({
    bus,
    settings,
    pool: identityDb.pool,
    redis,
    redisKeyPrefix: config.QUEUE_PREFIX,
    logger,
    firstAdmin,
    sessionTtlMs: config.SESSION_TTL_HOURS * 3600 * 1000,
    sessionCacheTtlMs: config.SESSION_CACHE_TTL_MS,
    satellite: satellites.authenticate,
    ...(tuning.loginRateLimits ? { loginRateLimits: tuning.loginRateLimits } : {}),
    ...(tuning.mail ? { mail: tuning.mail } : {}),
    ...(tuning.mailRequestLimits ? { mailRequestLimits: tuning.mailRequestLimits } : {}),
    ...(tuning.replicaAckTimeoutMs ? { replicaAckTimeoutMs: tuning.replicaAckTimeoutMs } : {}),
    ...(tuning.now ? { now: tuning.now } : {}),
  });
  const ownIdentity = identity;
  const sso = createSsoModule({
    pool: identityDb.pool,
    redis,
    redisKeyPrefix: config.QUEUE_PREFIX,
    settings,
    identity,
    logger,
    stateTtlMs: config.SSO_STATE_TTL_SECONDS * 1000,
    providerTimeoutMs: config.SSO_PROVIDER_TIMEOUT_MS,
    ...(tuning.now ? { now: tuning.now } : {}),
  });
  if (identityDb.pool.isReady()) await identity.afterMigrations();
  const publicUrl = new URL(config.OAUTH_ISSUER_URL ?? `http://localhost:${config.PORT}`);
  const oauth = createOAuthModule({
    pool: identityDb.pool,
    logger,
    issuerUrl: publicUrl,
    // Satellites introspect with their registry API key, through the same cache as their routes.
    authenticateResourceServer: createSatelliteResourceServerAuthenticator(satellites.verifyKey),
    lifetimes: {
      accessTokenSeconds: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenSeconds: config.OAUTH_REFRESH_TOKEN_TTL_DAYS * 86400,
      authorizationCodeSeconds: config.OAUTH_AUTHORIZATION_CODE_TTL_SECONDS,
    },
    personalTokenMaxDays: config.OAUTH_PERSONAL_TOKEN_MAX_DAYS,
    loginGate: identity.loginGate,
    clientMetadataDocuments: config.OAUTH_CLIENT_METADATA_DOCUMENTS && {
      allowHttp: config.OAUTH_CLIENT_METADATA_ALLOW_HTTP,
      allowNetworks: config.OAUTH_CLIENT_METADATA_ALLOWED_NETWORKS,
      timeoutMs: config.OAUTH_CLIENT_METADATA_TIMEOUT_MS,
      maxBytes: config.OAUTH_CLIENT_METADATA_MAX_BYTES,
      maxEntries: config.OAUTH_CLIENT_METADATA_CACHE_ENTRIES,
    },
    ...(tuning.now ? { now: tuning.now } : {}),
  });
  const eventRateLimiter = createEventRateLimiter({
    redis,
    keyPrefix: config.QUEUE_PREFIX,
    logger,
    limit: {
      maxRequests: config.EVENTS_RATE_LIMIT_MAX_REQUESTS,
      windowSeconds: config.EVENTS_RATE_LIMIT_WINDOW_SECONDS,
    },
  });
  let closing = false;
  options.readiness.add('http', () => !closing);
  const app = await buildGateway({
    bus,
    logger,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    httpTimeouts: config,
    trustProxy: config.TRUST_PROXY,
    readiness: options.readiness,
    identity,
    oauth,
    sso,
    sse: {
      ...(tuning.liveStreams ? { live: tuning.liveStreams } : {}),
      keepAliveMs: config.SSE_KEEPALIVE_MS,
      retryMs: config.SSE_RETRY_MS,
    },
    ...(options.metrics ? { metrics: options.metrics } : {}),
    eventRateLimiter,
    consoleDir: config.CONSOLE_DIR,
    publicUrl: publicUrl.href.replace(/\/$/, ''),
    recordAudit: (record) => recordAudit(identityDb.pool.get(), record),
    docsEnabled: createDocsSwitch({
      read: () => settings.boolean('global.enable_swagger_docs', true),
      logger,
      ...(tuning.docsTtlMs !== undefined ? { ttlMs: tuning.docsTtlMs } : {}),
    }),
  });
  return {
    app,
    identity,
    satellites,
    auditRelay,
    migrateIdentity: identityDb.migrate,
    beforeDrain: [
      {
        name: 'stop http',
        run: async () => {
          closing = true;
          await app.close();
          satellites.stop();
        },
      },
      { name: 'stop identity', run: () => ownIdentity.stop() },
      { name: 'stop the audit relay', run: () => auditRelay.stop() },
    ],
    afterDrain: [{ name: 'close identity pool', run: () => identityDb.pool.end() }],
  };
}
