import { writeDatabaseSetupRecord } from '@orbital/db';
import type { TestEnvironment } from './createTestEnvironment.ts';

/**
 * Records this run's database as chosen, as the setup wizard would: a service that owns tables applies
 * its migrations as soon as it starts instead of waiting for setup.
 */
export async function markDatabaseSetUp(env: Pick<TestEnvironment, 'postgres'>): Promise<void> {
  await writeDatabaseSetupRecord(
    { ...env.postgres, ssl: false },
    { databaseType: 'postgresql', selectedAt: new Date(), version: '1.0' },
  );
}
