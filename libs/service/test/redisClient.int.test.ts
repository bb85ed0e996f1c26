import { once } from 'node:events';
import { createLogger } from '@orbital/logger';
import { type PrivateRedisServer, startRedisServer, startTcpProxy, type TcpProxy } from '@orbital/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedisClient, isRedisReady } from '../src/createRedisClient.ts';

/**
 * A command client against a real Redis that goes away (stopped), hangs (a partition: the connection
 * stays open and nothing comes back) and returns: a command fails at once or at its timeout, never
 * waiting for a reconnection, and the client is usable again as soon as Redis is.
 */
let server: PrivateRedisServer;
let proxy: TcpProxy;
let redis: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port });
  redis = createRedisClient({
    url: `redis://${proxy.host}:${proxy.port}`,
    name: 'test',
    logger: createLogger({ name: 'redis-test', level: 'silent' }),
    commandTimeoutMs: 300,
  });
  await vi.waitFor(() => expect(isRedisReady(redis)).toBe(true));
});

afterAll(async () => {
  redis?.disconnect();
  await proxy?.close();
  await server?.close();
});

describe('createRedisClient', () => {
  it('fails a command at once while Redis is away, and works again when it is back', async () => {
    await redis.set('k', 'v');
    await server.stop();
    await vi.waitFor(() => expect(isRedisReady(redis)).toBe(false));
    await expect(redis.get('k')).rejects.toThrow(/enableOfflineQueue|Stream isn't writeable|Connection is closed/);
    await server.start();
    await vi.waitFor(() => expect(isRedisReady(redis)).toBe(true), { timeout: 10_000 });
    // Back empty, as a Redis without persistence comes back.
    expect(await redis.get('k')).toBeNull();
  });

  it('gives up on a command Redis does not answer after its timeout', async () => {
    proxy.cut('hang');
    try {
      await expect(redis.get('k')).rejects.toThrow(/timed out/i);
    } finally {
      proxy.restore();
    }
    // A connection cut while hanging stays dead (the proxy drops it): a new one works at once.
    const ready = once(redis, 'ready');
    redis.disconnect(true);
    await ready;
    expect(await redis.ping()).toBe('PONG');
  });
});
