import { runService } from '@orbital/service';
import { createSettingsApp } from './app.ts';
import { settingsConfigSchema } from './config.ts';

await runService({
  name: 'settings',
  configSchema: settingsConfigSchema,
  async start({ config, logger, bus, readiness }) {
    const app = await createSettingsApp({ bus, logger, config });
    readiness.add('database', app.database.isReachable);
    return {
      beforeDrain: [{ name: 'stop timers and the audit relay', run: () => app.stop() }],
      afterDrain: [{ name: 'close database pool', run: () => app.database.pool.end() }],
    };
  },
});
