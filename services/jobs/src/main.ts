import { runService } from '@orbital/service';
import { createJobsApp } from './app.ts';
import { configSchema } from './config.ts';

await runService({
  name: 'jobs',
  configSchema,
  async start({ config, logger, bus, metrics, readiness }) {
    const app = await createJobsApp({ bus, logger, config });
    // Both gate: the service does nothing but keep the schedules, and it cannot without Redis.
    readiness.add('redis', app.isRedisReady);
    readiness.add('schedules', () => app.scheduleState().kind === 'in_place');
    metrics.gauge(
      'orbital_jobs_queue_jobs',
      'Jobs of each schedule by state, read from BullMQ at scrape time',
      ['schedule', 'state'],
      async (gauge) => {
        gauge.reset();
        for (const { schedule, counts } of await app.queueCounts()) {
          for (const [state, count] of Object.entries(counts)) gauge.set({ schedule, state }, count);
        }
      },
    );
    return {
      // Workers first, while NATS still carries their requests; the schedulers stay in Redis.
      beforeDrain: [{ name: 'close workers', run: () => app.stopWorkers() }],
      afterDrain: [{ name: 'close queues and redis', run: () => app.close() }],
    };
  },
});
