import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { startContainer } from './containers.ts';
import { defaults, type Endpoint, hasDocker, InfrastructureMissingError, isReachable } from './infrastructure.ts';

export type TestEnvironment = {
  /** Short random id of this run; every name below includes it. */
  runId: string;
  postgres: { host: string; port: number; database: string; user: string };
  natsUrl: string;
  /** Subject prefix isolating this run's NATS traffic and streams. */
  subjectPrefix: string;
  redisUrl: string;
  /** BullMQ prefix isolating this run's queues. */
  queuePrefix: string;
  /** Environment variables describing all of the above, to hand to a service's config or process. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
};

async function endpointFor(name: 'postgres' | 'nats' | 'redis', stops: Array<() => Promise<void>>): Promise<Endpoint> {
  const endpoint = defaults[name];
  if (await isReachable(endpoint)) return endpoint;
  if (!hasDocker()) throw new InfrastructureMissingError(name, endpoint);
  const container = await startContainer(name);
  stops.push(container.stop);
  return container;
}

/**
 * Gives a test file its own database, NATS subject prefix and queue prefix on the real servers, so
 * test files can run side by side and never see each other's data. `cleanup` drops the database.
 */
export async function createTestEnvironment(options: { withDatabase?: boolean } = {}): Promise<TestEnvironment> {
  const runId = randomBytes(5).toString('hex');
  const stops: Array<() => Promise<void>> = [];
  const [pgEndpoint, natsEndpoint, redisEndpoint] = await Promise.all([
    endpointFor('postgres', stops),
    endpointFor('nats', stops),
    endpointFor('redis', stops),
  ]);
  const user = process.env.POSTGRES_USER || 'postgres';
  const database = `orbital_test_${runId}`;
  const admin = { host: pgEndpoint.host, port: pgEndpoint.port, user, database: 'postgres' };
  if (options.withDatabase !== false) {
    const client = new pg.Client(admin);
    await client.connect();
    await client.query(`CREATE DATABASE ${database}`);
    await client.end();
  }
  const natsUrl = `nats://${natsEndpoint.host}:${natsEndpoint.port}`;
  const redisUrl = `redis://${redisEndpoint.host}:${redisEndpoint.port}`;
  const subjectPrefix = `t${runId}`;
  const queuePrefix = `orbital-test-${runId}`;
  return {
    runId,
    postgres: { host: pgEndpoint.host, port: pgEndpoint.port, database, user },
    natsUrl,
    subjectPrefix,
    redisUrl,
    queuePrefix,
    env: {
      POSTGRES_HOST: pgEndpoint.host,
      POSTGRES_PORT: String(pgEndpoint.port),
      POSTGRES_DATABASE: database,
      POSTGRES_USER: user,
      POSTGRES_SSL: 'false',
      NATS_URL: natsUrl,
      NATS_SUBJECT_PREFIX: subjectPrefix,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: queuePrefix,
      // A fresh secret per run: nothing a test encrypts is readable by another run.
      SERVICE_ENCRYPTION_SECRET: randomBytes(32).toString('base64url'),
    },
    async cleanup() {
      await deleteStreams(natsUrl, subjectPrefix);
      if (options.withDatabase !== false) {
        const client = new pg.Client(admin);
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await client.end();
      }
      for (const stop of stops.reverse()) await stop();
    },
  };
}

/**
 * Deletes the JetStream streams this run created (named `<prefix>_...`): each reserves its max_bytes on
 * the shared server, and leftovers of finished runs would eventually exhaust its storage.
 */
async function deleteStreams(natsUrl: string, prefix: string): Promise<void> {
  const nc = await connect({ servers: natsUrl, noAsyncTraces: true });
  try {
    const jsm = await jetstreamManager(nc);
    const names: string[] = [];
    for await (const stream of jsm.streams.list()) {
      if (stream.config.name.startsWith(`${prefix}_`)) names.push(stream.config.name);
    }
    for (const name of names) await jsm.streams.delete(name).catch(() => false);
  } catch {
    // JetStream not enabled or unreachable: nothing of ours to delete.
  } finally {
    await nc.close();
  }
}
