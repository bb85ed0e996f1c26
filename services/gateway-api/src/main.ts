import { runService } from '@orbital/service';
import { Redis } from 'ioredis';
import { gatewayConfigSchema } from './config.ts';
import { createGateway } from './createGateway.ts';

await runService({
  name: 'gateway-api',
  configSchema: gatewayConfigSchema,
  async start({ config, logger, bus, metrics, readiness }) {
    const redis = new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 });
    await redis.connect();
    const gateway = await createGateway({ config, bus, logger, redis, metrics, readiness });
    await gateway.app.listen({ port: config.PORT, host: config.HOST });
    return {
      beforeDrain: gateway.beforeDrain,
      afterDrain: [...gateway.afterDrain, { name: 'close redis', run: async () => void (await redis.quit()) }],
    };
  },
});
