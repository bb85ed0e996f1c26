import { runService } from '@orbital/service';
import { createApp } from './app.ts';
import { configSchema } from './config.ts';

await runService({
  name: 'installations',
  configSchema,
  async start({ config, logger, bus }) {
    const app = await createApp({
      bus,
      logger,
      config,
    });
    return {
      beforeDrain: [{ name: 'stop consumer and outbox relay', run: () => app.stop() }],
      afterDrain: [{ name: 'close database pool', run: () => app.database.pool.end() }],
    };
  },
});
