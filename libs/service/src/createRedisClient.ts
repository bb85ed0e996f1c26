import type { Logger } from '@orbital/logger';
import { Redis } from 'ioredis';

/**
 * How a connection is used. `commands`: a request waits for each command (a rate limit, a status read),
 * so a command fails at once while Redis is away and after `commandTimeoutMs` when it does not answer,
 * never queued for a reconnection the caller will not wait for. `blocking`: BullMQ's workers, which hold
 * blocking commands open by design and require them never to be given up (`maxRetriesPerRequest: null`).
 */
export type RedisRole = 'commands' | 'blocking';

/**
 * An ioredis client that answers an outage as one. ioredis's defaults suit a batch job, not a request:
 * commands issued while disconnected wait in an offline queue and are retried for up to 20 reconnections,
 * so a login waited 10 to 15 s for a 500 when Redis was down. Here a `commands` client refuses a command at
 * once while disconnected (no offline queue, no retry on reconnection) and gives up on one Redis does not
 * answer within `commandTimeoutMs`; the caller decides what that means (503, or going on without Redis).
 * Both roles reconnect forever, at most every 2 s, and log the outage once and its end once, instead of
 * an error line per attempt.
 */
export function createRedisClient(options: {
  url: string;
  /** The connection's name in Redis's CLIENT LIST and in the logs. */
  name: string;
  logger: Logger;
  role?: RedisRole;
  commandTimeoutMs?: number;
}): Redis {
  const role = options.role ?? 'commands';
  const redis = new Redis(options.url, {
    connectionName: options.name,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    ...(role === 'commands'
      ? {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          autoResendUnfulfilledCommands: false,
          commandTimeout: options.commandTimeoutMs ?? 500,
        }
      : { maxRetriesPerRequest: null }),
  });
  let away = false;
  redis.on('error', (error: Error) => {
    if (away) return;
    away = true;
    options.logger.warn({ err: error, connection: options.name }, 'redis unreachable; reconnecting');
  });
  redis.on('ready', () => {
    if (!away) return;
    away = false;
    options.logger.info({ connection: options.name }, 'redis reachable again');
  });
  return redis;
}

/** For a readiness check: whether the client is connected and ready for commands now. */
export function isRedisReady(redis: Redis): boolean {
  return redis.status === 'ready';
}
