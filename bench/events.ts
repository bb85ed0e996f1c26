/**
 * Satellite events per second, end to end: HTTP batches of 100 events to gateway-api's route over a
 * real socket, stored in JetStream, read by a durable consumer that commits each event to PostgreSQL
 * before acknowledging it. Compared with raw JetStream publishes of the same events on the same machine.
 * Run: `npm run bench:events` (EVENTS=20000 SATELLITES=20 to change the load).
 *
 * Authentication is a stand-in resolver (a bearer naming the satellite) until the registry's API-key
 * resolver lands; the rate limiter is the real one on Redis, with a limit the load never reaches.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { consumeDurable, createBus, ensureStream, publishJson } from '@orbital/bus';
import { type CallerIdentity, satelliteEventSubject, satelliteEventsStream } from '@orbital/contracts';
import { buildGateway } from '@orbital/gateway-api/app';
import { createEventRateLimiter } from '@orbital/gateway-api/events/createEventRateLimiter';
import type { AccessResolver } from '@orbital/gateway-api/http/defineRoute';
import { createLogger } from '@orbital/logger';
import { createReadiness } from '@orbital/service';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { printTable } from './stats.ts';

const total = Number(process.env.EVENTS ?? 20000);
const satellites = Number(process.env.SATELLITES ?? 20);
const batchSize = 100;
const logger = createLogger({ name: 'bench', level: 'silent' });

/** Installation ids are UUIDs the backend issued; the gateway refuses events naming anything else. */
const installationId = randomUUID();

function event() {
  return {
    id: randomUUID(),
    type: 'mcp.tool.executed' as const,
    timestamp: new Date().toISOString(),
    data: {
      installation_id: installationId,
      team_id: 'team-1',
      server_slug: 'github',
      tool_name: 'search_issues',
      session_id: 'session-1',
      request_params: { query: 'is:open label:bug', per_page: 20 },
      duration_ms: 84,
      success: true,
      error_message: null,
      executed_at: new Date().toISOString(),
    },
  };
}

const benchAccess: AccessResolver = async (request) => {
  const satelliteId = String(request.headers.authorization ?? '').replace(/^Bearer bench-/, '');
  return { kind: 'satellite', satelliteId, satelliteType: 'team', teamId: 'team-1' } satisfies CallerIdentity;
};

/** Raw JetStream: the same events published with the same in-flight count the HTTP path reaches. */
async function rawPublish(env: TestEnvironment): Promise<number> {
  const bus = await createBus({
    servers: env.natsUrl,
    name: 'raw',
    prefix: `${env.subjectPrefix}raw`,
    streamMaxBytes: env.streamMaxBytes,
    logger,
  });
  await ensureStream(bus, satelliteEventsStream);
  const events = Array.from({ length: total }, event);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: satellites * batchSize }, async () => {
      while (next < events.length) {
        const e = events[next++] as ReturnType<typeof event>;
        await publishJson(bus, satelliteEventSubject('raw', e.type), e, { msgId: e.id });
      }
    }),
  );
  const perSecond = total / ((performance.now() - started) / 1000);
  await bus.drain();
  return perSecond;
}

type ConsumerMode = { concurrency: number; batch: boolean };

async function endToEnd(env: TestEnvironment, mode: ConsumerMode) {
  const { concurrency } = mode;
  const label = `${mode.batch ? 'b' : 'm'}${concurrency}`;
  const prefix = `${env.subjectPrefix}${label}`;
  const gatewayBus = await createBus({
    servers: env.natsUrl,
    name: 'gateway',
    prefix,
    streamMaxBytes: env.streamMaxBytes,
    logger,
  });
  const consumerBus = await createBus({
    servers: env.natsUrl,
    name: 'installations',
    prefix,
    streamMaxBytes: env.streamMaxBytes,
    logger,
  });
  await ensureStream(gatewayBus, satelliteEventsStream);
  const redis = new Redis(env.redisUrl);
  const gateway = await buildGateway({
    bus: gatewayBus,
    logger,
    readiness: createReadiness(),
    identity: { routes: [], resolveAccess: benchAccess },
    eventRateLimiter: createEventRateLimiter({
      redis,
      keyPrefix: env.queuePrefix,
      logger,
      limit: { maxRequests: 1_000_000, windowSeconds: 60 },
    }),
  });
  await gateway.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;

  const pool = new pg.Pool({ ...env.postgres, max: Math.max(4, concurrency) });
  const table = `bench_events_${label}`;
  await pool.query(
    `CREATE TABLE ${table} (id uuid PRIMARY KEY, satellite_id text NOT NULL, type text NOT NULL, payload jsonb NOT NULL)`,
  );
  let committed = 0;
  let allCommitted: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allCommitted = resolve;
  });
  const count = (rows: number) => {
    committed += rows;
    if (committed === total) allCommitted();
  };
  const consumer = await consumeDurable(consumerBus, {
    stream: satelliteEventsStream.name,
    durable: 'bench',
    filterSubjects: ['evt.satellite.>'],
    logger,
    concurrency,
    handler: async (payload, msg) => {
      const e = payload as { id: string; type: string };
      // Idempotent by event id, as a real consumer must be (redelivery after a lost ack).
      const result = await pool.query(
        `INSERT INTO ${table} (id, satellite_id, type, payload) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
        [e.id, msg.headers?.get('x-satellite-id') ?? '', e.type, payload],
      );
      count(result.rowCount ?? 0);
    },
    ...(mode.batch
      ? {
          batch: {
            maxMessages: 100,
            // One statement, one commit for the whole batch.
            handler: async (items) => {
              const result = await pool.query(
                `INSERT INTO ${table} (id, satellite_id, type, payload)
                 SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[]) ON CONFLICT (id) DO NOTHING`,
                [
                  items.map((i) => (i.payload as { id: string }).id),
                  items.map((i) => i.message.headers?.get('x-satellite-id') ?? ''),
                  items.map((i) => (i.payload as { type: string }).type),
                  items.map((i) => JSON.stringify(i.payload)),
                ],
              );
              count(result.rowCount ?? 0);
            },
          },
        }
      : {}),
  });

  const batchesPerSatellite = Math.ceil(total / batchSize / satellites);
  let ingested = 0;
  let ingestDone = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: satellites }, async (_, s) => {
      // Each satellite sends one batch at a time, as the specification requires.
      for (let b = 0; b < batchesPerSatellite && ingested < total; b += 1) {
        const events = Array.from({ length: Math.min(batchSize, total - ingested) }, event);
        ingested += events.length;
        const response = await fetch(`${base}/api/satellites/sat-${s}/events`, {
          method: 'POST',
          headers: { authorization: `Bearer bench-sat-${s}`, 'content-type': 'application/json' },
          body: JSON.stringify({ events }),
        });
        const body = (await response.json()) as { data?: { accepted: number } };
        if (response.status !== 200 || body.data?.accepted !== events.length) {
          throw new Error(`batch refused: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
        }
      }
    }),
  );
  ingestDone = performance.now();
  await done;
  const finished = performance.now();
  const stored = Number((await pool.query(`SELECT count(*) FROM ${table}`)).rows[0].count);

  await consumer.stop();
  await gateway.close();
  await gatewayBus.drain();
  await consumerBus.drain();
  await redis.quit();
  await pool.end();
  return {
    httpToStored: total / ((ingestDone - started) / 1000),
    httpToCommitted: total / ((finished - started) / 1000),
    stored,
  };
}

const env = await createTestEnvironment();
try {
  // Warm-up of JIT, sockets and the stream files.
  await rawPublish(env);
  const raw = await rawPublish(env);
  const rows: Array<Record<string, string | number>> = [
    { path: 'raw JetStream publish (acked)', consumer: '-', 'events/s': Math.round(raw), 'ratio to raw': 1 },
  ];
  const modes: ConsumerMode[] = [
    { concurrency: 1, batch: false },
    { concurrency: 16, batch: false },
    { concurrency: 1, batch: true },
    { concurrency: 4, batch: true },
  ];
  for (const mode of modes) {
    const result = await endToEnd(env, mode);
    const consumer = `${mode.batch ? 'batches of <=100' : 'per message'}, ${mode.concurrency} at once`;
    if (result.stored !== total) throw new Error(`stored ${result.stored} of ${total}`);
    rows.push({
      path: 'HTTP batch -> JetStream (200 received)',
      consumer,
      'events/s': Math.round(result.httpToStored),
      'ratio to raw': Number((result.httpToStored / raw).toFixed(2)),
    });
    rows.push({
      path: 'HTTP batch -> committed PostgreSQL write',
      consumer,
      'events/s': Math.round(result.httpToCommitted),
      'ratio to raw': Number((result.httpToCommitted / raw).toFixed(2)),
    });
  }
  printTable(
    `${total} events, ${satellites} satellites sending batches of ${batchSize}, one batch at a time each`,
    rows,
  );
} finally {
  await env.cleanup();
}
