import { satelliteEventsStream } from '@orbital/contracts';
import { collectConsumerLag, runService } from '@orbital/service';
import { createApp } from './app.ts';
import { configSchema } from './config.ts';
import { satelliteEventBatchesDurable, satelliteEventsDurable } from './consumers/startSatelliteEventConsumer.ts';

await runService({
  name: 'installations',
  configSchema,
  async start({ config, logger, bus, metrics, readiness }) {
    const app = await createApp({ bus, logger, config });
    readiness.add('database', app.database.isReachable);
    collectConsumerLag(metrics, bus, [
      { stream: satelliteEventsStream.name, durable: satelliteEventBatchesDurable },
      { stream: satelliteEventsStream.name, durable: satelliteEventsDurable },
    ]);
    return {
      beforeDrain: [{ name: 'stop consumer and outbox relay', run: () => app.stop() }],
      afterDrain: [{ name: 'close database pool', run: () => app.database.pool.end() }],
    };
  },
});
