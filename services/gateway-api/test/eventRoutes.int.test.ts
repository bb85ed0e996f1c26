import { type Bus, createBus } from '@orbital/bus';
import type { CallerIdentity } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createLogger } from '@orbital/logger';
import type { TestEnvironment } from '@orbital/testing';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventRateLimiter } from '../src/events/createEventRateLimiter.ts';
import type { SatelliteAuthenticator } from '../src/http/defineRoute.ts';
import { configRefreshedEvent, crashedEvent } from './eventFixtures.ts';
import { refuseSatelliteKeys } from './refuseSatelliteKeys.ts';
import { startSatelliteEventBus } from './satelliteEventBus.ts';
import { startTestGateway, type TestGateway } from './startTestGateway.ts';

const logger = createLogger({ name: 'event-routes-test', level: 'silent' });
let env: TestEnvironment;
let bus: Bus;
let redis: Redis;
const gateways: TestGateway[] = [];

/** Satellite ids are UUIDs (the path refuses anything else). */
const satellites = {
  one: '11111111-1111-4111-8111-111111111111',
  two: '22222222-2222-4222-8222-222222222222',
  busy: '33333333-3333-4333-8333-333333333333',
  quiet: '44444444-4444-4444-8444-444444444444',
};

/**
 * Stands in for the API-key cache, so these tests need no registry: a bearer token names the
 * satellite. That a satellite reaches only its own id is the route's access, judged by the gateway.
 */
const testSatelliteKeys: SatelliteAuthenticator = async (request) => {
  const token = request.headers.authorization?.replace(/^Bearer /, '');
  if (!token?.startsWith('test-key-')) throw new AppError('unauthenticated', 'Satellite authentication failed');
  return {
    kind: 'satellite',
    satellite_id: token.slice('test-key-'.length),
    satellite_type: 'global',
    team_id: null,
  } satisfies CallerIdentity;
};

/**
 * gateway-api through its composition root, with the event batch limit the test sets, and without a
 * database, as a deployment without POSTGRES_HOST runs: event intake needs none.
 */
async function gateway(
  options: { authenticateSatellite?: SatelliteAuthenticator; maxRequests?: number; busOverride?: Bus } = {},
) {
  const built = await startTestGateway({
    env,
    bus: options.busOverride ?? bus,
    logger,
    authenticateSatellite: options.authenticateSatellite ?? testSatelliteKeys,
    configEnv: { POSTGRES_HOST: '', EVENTS_RATE_LIMIT_MAX_REQUESTS: String(options.maxRequests ?? 1000) },
  });
  gateways.push(built);
  return built.app;
}

const post = (
  app: FastifyInstance,
  satelliteId: string,
  body: unknown,
  key: string | null = `test-key-${satelliteId}`,
) =>
  app.inject({
    method: 'POST',
    url: `/api/satellites/${satelliteId}/events`,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    payload: body as object,
  });

beforeAll(async () => {
  ({ env, bus } = await startSatelliteEventBus(logger));
  redis = new Redis(env.redisUrl);
});
afterAll(async () => {
  for (const built of gateways) await built.stop();
  await bus.drain();
  await redis.quit();
  await env.cleanup();
});

describe('POST /api/satellites/:id/events', () => {
  it('answers 401 to every request when the satellite key is refused', async () => {
    const app = await gateway({ authenticateSatellite: refuseSatelliteKeys });
    for (const key of [null, `test-key-${satellites.one}`, 'garbage']) {
      const response = await post(app, satellites.one, { events: [configRefreshedEvent()] }, key);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'unauthenticated' } });
    }
  });

  it('answers per event with 200, and 400 only for a body that is not a batch', async () => {
    const app = await gateway();
    const good = crashedEvent();
    const response = await post(app, satellites.one, { events: [good, { ...good, id: 'not-a-uuid' }] });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: {
        accepted: 1,
        rejected: 1,
        results: [
          { index: 0, id: good.id, status: 'accepted', duplicate: false },
          {
            index: 1,
            id: 'not-a-uuid',
            status: 'rejected',
            error: expect.objectContaining({ code: 'validation_failed' }),
          },
        ],
      },
    });
    // The route's body schema is the one check of the batch as a whole: nothing of such a body is stored.
    for (const body of [{ events: [] }, { events: Array(101).fill(good) }, { nothing: true }, { events: 'x' }]) {
      const refused = await post(app, satellites.one, body);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({
        success: false,
        error: { code: 'validation_failed', details: [expect.objectContaining({ path: 'body.events' })] },
      });
    }
  });

  it("refuses a key used on another satellite's path with 403 and a bad key with 401", async () => {
    const app = await gateway();
    expect(
      (await post(app, satellites.two, { events: [configRefreshedEvent()] }, `test-key-${satellites.one}`)).statusCode,
    ).toBe(403);
    expect((await post(app, satellites.one, { events: [configRefreshedEvent()] }, 'wrong')).statusCode).toBe(401);
  });

  it('limits batches per satellite across gateway replicas with 429 and Retry-After', async () => {
    const [a, b] = [await gateway({ maxRequests: 3 }), await gateway({ maxRequests: 3 })];
    const statuses = [];
    for (const app of [a, b, a, b])
      statuses.push((await post(app, satellites.busy, { events: [configRefreshedEvent()] })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await post(a, satellites.busy, { events: [configRefreshedEvent()] });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json()).toMatchObject({
      error: { code: 'rate_limited', details: { retry_after_seconds: expect.any(Number) } },
    });
    // Another satellite has its own budget.
    expect((await post(b, satellites.quiet, { events: [configRefreshedEvent()] })).statusCode).toBe(200);
  });

  it('starts each window with its first batch, and gives a counter that lost its expiry one again', async () => {
    const limiter = createEventRateLimiter({
      redis,
      keyPrefix: env.queuePrefix,
      logger,
      limit: { maxRequests: 2, windowSeconds: 40 },
    });
    const fresh = '55555555-5555-4555-8555-555555555555';
    await limiter.check(fresh);
    expect(await redis.ttl(`${env.queuePrefix}:events:rate:${fresh}`)).toBeGreaterThan(30);

    // A counter left without an expiry (written by hand, or by a failure between two commands of an older
    // gateway) would refuse the satellite for good.
    const stuck = '66666666-6666-4666-8666-666666666666';
    await redis.set(`${env.queuePrefix}:events:rate:${stuck}`, '7');
    expect(await limiter.check(stuck)).toEqual({ allowed: false, retryAfterSeconds: 40 });
    expect(await redis.ttl(`${env.queuePrefix}:events:rate:${stuck}`)).toBeGreaterThan(30);
  });

  it('lets batches through when Redis does not answer, and says so', async () => {
    const unreachable = new Redis({
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    const warnings: unknown[] = [];
    const watched = createLogger({ name: 'event-routes-test', level: 'warn' });
    watched.warn = ((...args: unknown[]) => void warnings.push(args)) as typeof watched.warn;
    try {
      const limiter = createEventRateLimiter({
        redis: unreachable,
        keyPrefix: env.queuePrefix,
        logger: watched,
        limit: { maxRequests: 1, windowSeconds: 60 },
      });
      expect(await limiter.check(satellites.busy)).toEqual({ allowed: true });
      expect(await limiter.check(satellites.busy)).toEqual({ allowed: true });
      expect(warnings).toHaveLength(1);
    } finally {
      unreachable.disconnect();
    }
  });

  it('answers 503 when JetStream cannot store the events, so the satellite keeps them', async () => {
    const noStream = await createBus({
      ...env.busOptions('gw-2'),
      prefix: `${env.subjectPrefix}y`,
      logger,
      requestTimeoutMs: 1000,
    });
    try {
      const app = await gateway({ busOverride: noStream });
      const response = await post(app, satellites.one, { events: [configRefreshedEvent()] });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'unavailable' } });
    } finally {
      await noStream.drain();
    }
  });
});
