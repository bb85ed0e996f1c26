import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { IdentityKeyConfig } from '@orbital/bus';
import pg from 'pg';
import { startContainer } from './containers.ts';
import { testIdentityKeys } from './identityKeys.ts';
import { defaults, type Endpoint, hasDocker, InfrastructureMissingError, isReachable } from './infrastructure.ts';

export type TestEnvironment = {
  /** Short random id of this run; every name below includes it. */
  runId: string;
  postgres: { host: string; port: number; database: string; user: string };
  natsUrl: string;
  /** Subject prefix isolating this run's NATS traffic and streams. */
  subjectPrefix: string;
  /**
   * Cap of this run's stream sizes (give it to createBus as streamMaxBytes): JetStream reserves each
   * stream's whole size, so runs sharing a server with production sizes would exhaust its storage.
   */
  streamMaxBytes: number;
  /**
   * Keys signing and verifying caller identities (give it to createBus as `identity`): one pair per
   * process, all of them here, so a test's bus may act as any process and for any user or satellite.
   */
  identity: IdentityKeyConfig;
  redisUrl: string;
  /** BullMQ prefix isolating this run's queues. */
  queuePrefix: string;
  /** What a bus needs to join this run's NATS traffic (createBus takes it with a logger added). */
  busOptions(name: string): {
    servers: string;
    name: string;
    prefix: string;
    streamMaxBytes: number;
    identity: IdentityKeyConfig;
  };
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
  const streamMaxBytes = 64 * 1024 * 1024;
  const queuePrefix = `orbital-test-${runId}`;
  const identity = testIdentityKeys().all;
  return {
    runId,
    postgres: { host: pgEndpoint.host, port: pgEndpoint.port, database, user },
    natsUrl,
    subjectPrefix,
    streamMaxBytes,
    identity,
    redisUrl,
    queuePrefix,
    busOptions: (name) => ({ servers: natsUrl, name, prefix: subjectPrefix, streamMaxBytes, identity }),
    env: {
      POSTGRES_HOST: pgEndpoint.host,
      POSTGRES_PORT: String(pgEndpoint.port),
      POSTGRES_DATABASE: database,
      POSTGRES_USER: user,
      POSTGRES_SSL: 'false',
      NATS_URL: natsUrl,
      NATS_SUBJECT_PREFIX: subjectPrefix,
      NATS_STREAM_MAX_BYTES: String(streamMaxBytes),
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: queuePrefix,
      // A fresh secret per run: nothing a test encrypts is readable by another run.
      SERVICE_ENCRYPTION_SECRET: randomBytes(32).toString('base64url'),
      REGISTRATION_TOKEN_SECRET: randomBytes(32).toString('base64url'),
      // Every process's signing key: startServiceProcess keeps only the started process's own.
      IDENTITY_SIGNING_KEY: identity.signingKeys,
      IDENTITY_PUBLIC_KEYS: identity.publicKeys,
    },
    async cleanup() {
      await deleteStreams(natsUrl, subjectPrefix);
      if (options.withDatabase !== false) {
        const client = new pg.Client(admin);
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await client.end();
      }
      await deleteStreams(natsUrl, subjectPrefix);
      for (const stop of stops.reverse()) await stop();
    },
  };
}

/** JetStream streams outlive connections: remove the ones this run created (named `<prefix>...`). */
async function deleteStreams(natsUrl: string, subjectPrefix: string): Promise<void> {
  const connection = await connect({ servers: natsUrl, noAsyncTraces: true });
  try {
    const jsm = await jetstreamManager(connection);
    for await (const name of jsm.streams.names()) {
      // Also the streams of buses given a derived prefix (`<prefix>x`, as some tests and benchmarks do).
      if (name.startsWith(subjectPrefix)) await jsm.streams.delete(name);
    }
  } finally {
    await connection.close();
  }
}
