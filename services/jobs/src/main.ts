import { runService } from '@orbital/service';
import { Redis } from 'ioredis';
import { configSchema } from './config.ts';

await runService({
  name: 'jobs',
  configSchema,
  async start({ config, logger }) {
    // BullMQ needs maxRetriesPerRequest: null on worker connections; the schedules arrive with issue 11.
    const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: true });
    await redis.connect();
    logger.info('connected to redis');
    return { afterDrain: [{ name: 'close redis', run: async () => void (await redis.quit()) }] };
  },
});
