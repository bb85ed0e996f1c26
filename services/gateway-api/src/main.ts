import { createRedisClient, runService } from '@orbital/service';
import { gatewayConfigSchema } from './config.ts';
import { createGateway } from './createGateway.ts';

await runService({
  name: 'gateway-api',
  configSchema: gatewayConfigSchema,
  async start({ config, logger, bus, metrics, readiness }) {
    // Not waited for: without Redis the gateway serves everything but login (503) and counts no event
    // batches, and it connects whenever Redis comes (readiness names it meanwhile).
    const redis = createRedisClient({ url: config.REDIS_URL, name: 'gateway-api', logger });
    const gateway = await createGateway({ config, bus, logger, redis, metrics, readiness });
    await gateway.app.listen({ port: config.PORT, host: config.HOST });
    return {
      beforeDrain: gateway.beforeDrain,
      afterDrain: [...gateway.afterDrain, { name: 'close redis', run: async () => redis.disconnect() }],
    };
  },
});
