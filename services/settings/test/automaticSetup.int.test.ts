import { readDatabaseSetupRecord } from '@orbital/db';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Replica, startReplica } from './settingsHarness.ts';

/**
 * DATABASE_SETUP=auto on two replicas started together, against the real database: exactly one sets
 * the database up, the other learns it is done, and the setup call afterwards is the usual conflict.
 */
let env: TestEnvironment;
const replicas: Replica[] = [];

beforeAll(async () => {
  env = await createTestEnvironment();
  replicas.push(
    ...(await Promise.all([
      startReplica(env, { DATABASE_SETUP: 'auto', DB_SETUP_SERVICE_TIMEOUT_MS: '500' }),
      startReplica(env, { DATABASE_SETUP: 'auto', DB_SETUP_SERVICE_TIMEOUT_MS: '500' }),
    ])),
  );
});

afterAll(async () => {
  for (const replica of replicas) await replica.stop();
  await env?.cleanup();
});

describe('automatic database setup', () => {
  it('sets the database up once across replicas started together', async () => {
    const outcomes = await Promise.all(replicas.map((replica) => replica.app.automaticSetup));
    expect(outcomes.sort()).toEqual(['already set up', 'set up']);
    expect(await readDatabaseSetupRecord({ ...env.postgres, ssl: false })).toMatchObject({
      databaseType: 'postgresql',
    });
    const logged = replicas.map((replica) => replica.logs()).join('\n');
    expect(logged.match(/database set up automatically/g)).toHaveLength(1);
  });

  it('leaves a replica without it waiting for the setup call', async () => {
    const manual = await startReplica(env);
    replicas.push(manual);
    expect(manual.app.automaticSetup).toBeUndefined();
  });
});
