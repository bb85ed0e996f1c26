import { jetstreamManager } from '@nats-io/jetstream';
import { ensureStream, streamName } from '@orbital/bus';
import { satelliteEventsStream } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { stackForFile } from '@orbital/testing/stackForFile';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventRateLimiter } from '../src/events/createEventRateLimiter.ts';
import { configRefreshedEvent, crashedEvent } from './eventFixtures.ts';
import { type Registered, registerSatellite, startSatelliteStack } from './satelliteHarness.ts';

/**
 * The events endpoint's HTTP answers (per-event results, a refused body, refused keys, the rate limit, a
 * store that cannot take the batch) for satellites registered through the real registry and
 * authenticated by their API keys, as production authenticates them.
 */
const stack = stackForFile(() => startSatelliteStack());
const logger = createLogger({ name: 'event-routes-test', level: 'silent' });
let redis: Redis;
let one: Registered;
let two: Registered;

beforeAll(async () => {
  redis = new Redis(stack.env.redisUrl);
  one = await registerSatellite(stack, { scope: 'global' }, 'routes-one');
  two = await registerSatellite(stack, { scope: 'global' }, 'routes-two');
});
afterAll(async () => {
  await redis.quit();
});

const post = (app: FastifyInstance, satelliteId: string, body: unknown, key: string | null) =>
  app.inject({
    method: 'POST',
    url: `/api/satellites/${satelliteId}/events`,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    payload: body as object,
  });

describe('POST /api/satellites/:id/events', () => {
  it('answers 401 to a request without a key, with a key the registry never issued, or with garbage', async () => {
    const forged = `${one.apiKey.split('.')[0]}.not-the-secret`;
    for (const key of [null, forged, 'garbage']) {
      const response = await post(stack.gateway, one.id, { events: [configRefreshedEvent()] }, key);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'unauthenticated' } });
    }
  });

  it('answers per event with 200, and 400 only for a body that is not a batch', async () => {
    const good = crashedEvent();
    const response = await post(stack.gateway, one.id, { events: [good, { ...good, id: 'not-a-uuid' }] }, one.apiKey);
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
      const refused = await post(stack.gateway, one.id, body, one.apiKey);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({
        success: false,
        error: { code: 'validation_failed', details: [expect.objectContaining({ path: 'body.events' })] },
      });
    }
  });

  it("refuses a key used on another satellite's path with 403", async () => {
    const response = await post(stack.gateway, two.id, { events: [configRefreshedEvent()] }, one.apiKey);
    expect(response.statusCode).toBe(403);
  });

  it('limits batches per satellite across gateway replicas with 429 and Retry-After', async () => {
    const busy = await registerSatellite(stack, { scope: 'global' }, 'routes-busy');
    const quiet = await registerSatellite(stack, { scope: 'global' }, 'routes-quiet');
    const limited3 = { EVENTS_RATE_LIMIT_MAX_REQUESTS: '3' };
    const [a, b] = [(await stack.startReplica({}, limited3)).app, (await stack.startReplica({}, limited3)).app];
    const statuses = [];
    for (const app of [a, b, a, b])
      statuses.push((await post(app, busy.id, { events: [configRefreshedEvent()] }, busy.apiKey)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await post(a, busy.id, { events: [configRefreshedEvent()] }, busy.apiKey);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json()).toMatchObject({
      error: { code: 'rate_limited', details: { retry_after_seconds: expect.any(Number) } },
    });
    // Another satellite has its own budget.
    expect((await post(b, quiet.id, { events: [configRefreshedEvent()] }, quiet.apiKey)).statusCode).toBe(200);
  });

  it('starts each window with its first batch, and gives a counter that lost its expiry one again', async () => {
    const { queuePrefix } = stack.env;
    const limiter = createEventRateLimiter({
      redis,
      keyPrefix: queuePrefix,
      logger,
      limit: { maxRequests: 2, windowSeconds: 40 },
    });
    const fresh = '55555555-5555-4555-8555-555555555555';
    await limiter.check(fresh);
    expect(await redis.ttl(`${queuePrefix}:events:rate:${fresh}`)).toBeGreaterThan(30);

    // A counter left without an expiry (written by hand, or by a failure between two commands of an older
    // gateway) would refuse the satellite for good.
    const stuck = '66666666-6666-4666-8666-666666666666';
    await redis.set(`${queuePrefix}:events:rate:${stuck}`, '7');
    expect(await limiter.check(stuck)).toEqual({ allowed: false, retryAfterSeconds: 40 });
    expect(await redis.ttl(`${queuePrefix}:events:rate:${stuck}`)).toBeGreaterThan(30);
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
        keyPrefix: stack.env.queuePrefix,
        logger: watched,
        limit: { maxRequests: 1, windowSeconds: 60 },
      });
      const anySatellite = '77777777-7777-4777-8777-777777777777';
      expect(await limiter.check(anySatellite)).toEqual({ allowed: true });
      expect(await limiter.check(anySatellite)).toEqual({ allowed: true });
      expect(warnings).toHaveLength(1);
    } finally {
      unreachable.disconnect();
    }
  });

  it('answers 503 when JetStream cannot store the events, so the satellite keeps them', async () => {
    // The key is known first, so the 503 is the store's and not the registry's.
    expect((await post(stack.gateway, one.id, { events: [configRefreshedEvent()] }, one.apiKey)).statusCode).toBe(200);
    const jsm = await jetstreamManager(stack.adminBus.connection);
    await jsm.streams.delete(streamName(stack.adminBus, satelliteEventsStream.name));
    try {
      const response = await post(stack.gateway, one.id, { events: [configRefreshedEvent()] }, one.apiKey);
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'unavailable' } });
    } finally {
      await ensureStream(stack.adminBus, satelliteEventsStream);
    }
  });
});
