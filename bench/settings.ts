/**
 * Cached settings reads per second through NATS (a platform service asking the settings service) and,
 * when gateway-api is given, through HTTP. Real PostgreSQL and NATS; one settings replica in this
 * process. Run: `npm run bench:settings`.
 */
import { createBus } from '@orbital/bus';
import { loadConfig } from '@orbital/config';
import { type CallerIdentity, settingsSubjects } from '@orbital/contracts';
import { writeDatabaseSetupRecord } from '@orbital/db';
import { createLogger } from '@orbital/logger';
import { createSettingsApp } from '@orbital/settings/app';
import { settingsConfigSchema } from '@orbital/settings/config';
import { createTestEnvironment } from '@orbital/testing';
import { measure, printTable } from './stats.ts';

const env = await createTestEnvironment();
const logger = createLogger({ name: 'bench', level: 'silent' });
try {
  await writeDatabaseSetupRecord(
    { ...env.postgres, ssl: false },
    { databaseType: 'postgresql', selectedAt: new Date(), version: '1.0' },
  );
  const serviceBus = await createBus({ servers: env.natsUrl, name: 'settings', prefix: env.subjectPrefix, logger });
  const app = await createSettingsApp({ bus: serviceBus, logger, config: loadConfig(settingsConfigSchema, env.env) });
  const client = await createBus({ servers: env.natsUrl, name: 'client', prefix: env.subjectPrefix, logger });
  const admin: CallerIdentity = { kind: 'user', userId: 'bench', globalRole: 'global_admin', memberships: [] };
  const service: CallerIdentity = { kind: 'service', service: 'bench' };

  // Warm up the connections and the JIT.
  for (let i = 0; i < 500; i += 1)
    await client.request(settingsSubjects.getSetting, { key: 'smtp.host' }, { identity: admin });

  const rows = [];
  for (const concurrency of [1, 16, 64]) {
    rows.push({
      path: 'NATS settings.setting.get',
      concurrency,
      ...(await measure(() => client.request(settingsSubjects.getSetting, { key: 'smtp.port' }, { identity: admin }), {
        count: 20000,
        concurrency,
      })),
    });
    rows.push({
      path: 'NATS settings.value.get (plaintext)',
      concurrency,
      ...(await measure(
        () => client.request(settingsSubjects.getValues, { keys: ['smtp.port'] }, { identity: service }),
        {
          count: 20000,
          concurrency,
        },
      )),
    });
  }
  rows.push({
    path: 'in-process cache read',
    concurrency: 1,
    ...(await measure(() => app.operations.getSetting({ key: 'smtp.port' }), { count: 200000, concurrency: 1 })),
  });
  printTable('Cached settings reads (latency in ms)', rows);

  await client.drain();
  app.stop();
  await serviceBus.drain();
  await app.database.pool.end();
} finally {
  await env.cleanup();
}
