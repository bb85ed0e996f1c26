import { runService } from '@orbital/service';
import { createApp } from './app.ts';
import { configSchema } from './config.ts';

await runService({
  name: 'satellite-registry',
  configSchema,
  async start(context) {
    const app = await createApp(context);
    context.readiness.add('database', app.database.isReachable);
    return {
      beforeDrain: [{ name: 'stop the audit relay and the offline watch', run: () => app.stop() }],
      afterDrain: [{ name: 'close database pool', run: () => app.database.pool.end() }],
    };
  },
});
