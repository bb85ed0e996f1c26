import { fileURLToPath } from 'node:url';
import { postgresConnectionFromEnv } from '@orbital/db';
import { runService, startDatabaseOwner } from '@orbital/service';
import { Redis } from 'ioredis';
import { buildGateway } from './app.ts';
import { gatewayConfigSchema } from './config.ts';
import { createEventRateLimiter } from './events/createEventRateLimiter.ts';

const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

await runService({
  name: 'gateway-api',
  configSchema: gatewayConfigSchema,
  async start({ config, logger, bus }) {
    // gateway-api owns the identity schema: authentication happens at the edge.
    const identityDb = await startDatabaseOwner({
      bus,
      owner: 'identity',
      connection: postgresConnectionFromEnv(config),
      migrationsDir,
      logger,
    });
    // No offline queue: when Redis is away a limit check fails at once (and lets the batch through)
    // instead of holding every event request until Redis is back.
    const redis = new Redis(config.REDIS_URL, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 500,
    });
    redis.on('error', (error) => logger.debug({ err: error }, 'redis connection error'));
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
    const app = await buildGateway({
      bus,
      logger,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      trustProxy: config.TRUST_PROXY,
      eventRateLimiter,
      readiness: { isReady: () => !draining && !bus.connection.isClosed() },
    });
    await app.listen({ port: config.PORT, host: config.HOST });
    return {
      beforeDrain: [
        {
          name: 'stop http',
          run: async () => {
            draining = true;
            await app.close();
          },
        },
      ],
      afterDrain: [
        { name: 'close identity pool', run: () => identityDb.pool.end() },
        { name: 'close redis', run: async () => void (await redis.quit()) },
      ],
    };
  },
});
