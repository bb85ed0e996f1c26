import { createBus } from '@orbital/bus';
import { loadConfig } from '@orbital/config';
import { createJobsApp } from '@orbital/jobs/app';
import { configSchema as jobsConfigSchema } from '@orbital/jobs/config';
import type { Logger } from '@orbital/logger';

/**
 * The real jobs service (GET /api/jobs/status answers from it) on a stack's NATS, configured from the
 * environment a deployment would give it, as its main.ts starts it. `stop` ends its workers, its bus and
 * its queues' connections.
 */
export async function startJobsService(env: Record<string, string>, logger: Logger) {
  const config = loadConfig(jobsConfigSchema, env);
  const bus = await createBus({
    servers: config.NATS_URL,
    identity: { signingKeys: config.IDENTITY_SIGNING_KEY, publicKeys: config.IDENTITY_PUBLIC_KEYS },
    name: 'jobs',
    prefix: config.NATS_SUBJECT_PREFIX,
    logger,
  });
  const jobs = await createJobsApp({ bus, logger, config });
  await bus.flush();
  return {
    async stop() {
      await jobs.stopWorkers();
      await bus.drain();
      await jobs.close();
    },
  };
}
