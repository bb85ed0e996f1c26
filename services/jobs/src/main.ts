import { runService } from '@orbital/service';
import { createJobsApp } from './app.ts';
import { configSchema } from './config.ts';

await runService({
  name: 'jobs',
  configSchema,
  async start({ config, logger, bus }) {
    const app = await createJobsApp({ bus, logger, config });
    return {
      // Workers first, while NATS still carries their requests; the schedulers stay in Redis.
      beforeDrain: [{ name: 'close workers', run: () => app.stopWorkers() }],
      afterDrain: [{ name: 'close queues and redis', run: () => app.close() }],
    };
  },
});
