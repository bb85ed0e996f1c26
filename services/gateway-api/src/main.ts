import { fileURLToPath } from 'node:url';
import { serviceIdentity } from '@orbital/contracts';
import { postgresConnectionFromEnv } from '@orbital/db';
import { runService, startDatabaseOwner } from '@orbital/service';
import { createNatsSettingsSource, createSettingsReader } from '@orbital/settings-client';
import { Redis } from 'ioredis';
import { buildGateway } from './app.ts';
import { gatewayConfigSchema } from './config.ts';
import { createEventRateLimiter } from './events/createEventRateLimiter.ts';
import { createDocsSwitch } from './http/createDocsSwitch.ts';
import { createIdentityModule, type IdentityModule } from './identity/createIdentityModule.ts';
import { firstAdminFromConfig } from './identity/ensureFirstAdmin.ts';
import { createOAuthModule } from './oauth/createOAuthModule.ts';
import { createSatelliteResourceServerAuthenticator } from './oauth/resourceServerAuthenticator.ts';
import { createSatelliteAuthenticator } from './satellites/createSatelliteAuthenticator.ts';

const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

await runService({
  name: 'gateway-api',
  configSchema: gatewayConfigSchema,
  async start({ config, logger, bus, metrics, readiness }) {
    // Checked before anything starts: a weak or half-given first admin is a configuration error.
    const firstAdmin = firstAdminFromConfig(config);
    const redis = new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 });
    await redis.connect();
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
    readiness.add('database', identityDb.isReachable);
    const satellites = await createSatelliteAuthenticator({ bus, logger });
    identity = await createIdentityModule({
      bus,
      pool: identityDb.pool,
      redis,
      redisKeyPrefix: config.QUEUE_PREFIX,
      logger,
      firstAdmin,
      sessionTtlMs: config.SESSION_TTL_HOURS * 3600 * 1000,
      sessionCacheTtlMs: config.SESSION_CACHE_TTL_MS,
      satellite: satellites.authenticate,
    });
    if (identityDb.pool.isReady()) await identity.afterMigrations();
    const oauth = createOAuthModule({
      pool: identityDb.pool,
      logger,
      issuerUrl: new URL(config.OAUTH_ISSUER_URL ?? `http://localhost:${config.PORT}`),
      // Satellites introspect with their registry API key, through the same cache as their routes.
      authenticateResourceServer: createSatelliteResourceServerAuthenticator(satellites.verifyKey),
      lifetimes: {
        accessTokenSeconds: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
        refreshTokenSeconds: config.OAUTH_REFRESH_TOKEN_TTL_DAYS * 86400,
        authorizationCodeSeconds: config.OAUTH_AUTHORIZATION_CODE_TTL_SECONDS,
      },
      personalTokenMaxDays: config.OAUTH_PERSONAL_TOKEN_MAX_DAYS,
      clientMetadataDocuments: config.OAUTH_CLIENT_METADATA_DOCUMENTS && {
        allowHttp: config.OAUTH_CLIENT_METADATA_ALLOW_HTTP,
        allowNetworks: config.OAUTH_CLIENT_METADATA_ALLOWED_NETWORKS,
        timeoutMs: config.OAUTH_CLIENT_METADATA_TIMEOUT_MS,
        maxBytes: config.OAUTH_CLIENT_METADATA_MAX_BYTES,
        maxEntries: config.OAUTH_CLIENT_METADATA_CACHE_ENTRIES,
      },
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
    let draining = false;
    readiness.add('http', () => !draining);
    const app = await buildGateway({
      bus,
      logger,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      trustProxy: config.TRUST_PROXY,
      readiness,
      identity,
      oauth,
      sse: { keepAliveMs: config.SSE_KEEPALIVE_MS, retryMs: config.SSE_RETRY_MS },
      metrics,
      eventRateLimiter,
      consoleDir: config.CONSOLE_DIR,
      publicUrl: config.OAUTH_ISSUER_URL ?? `http://localhost:${config.PORT}`,
      docsEnabled: createDocsSwitch({
        read: () =>
          createSettingsReader(createNatsSettingsSource(bus, serviceIdentity('gateway-api'))).boolean(
            'global.enable_swagger_docs',
            true,
          ),
        logger,
      }),
    });
    await app.listen({ port: config.PORT, host: config.HOST });
    return {
      beforeDrain: [
        {
          name: 'stop http',
          run: async () => {
            draining = true;
            await app.close();
            satellites.stop();
          },
        },
        { name: 'stop identity', run: () => identity.stop() },
      ],
      afterDrain: [
        { name: 'close identity pool', run: () => identityDb.pool.end() },
        { name: 'close redis', run: async () => void (await redis.quit()) },
      ],
    };
  },
});
