import type { Logger } from '@orbital/logger';
import type { Redis } from 'ioredis';

export type EventRateLimit = { maxRequests: number; windowSeconds: number };

/**
 * A satellite sends one batch every 3 seconds (20 a minute); at shutdown it flushes its queue in quick
 * succession. 120 batches a minute (at most 12,000 events) leaves room for that and stops a runaway or
 * misused key long before it loads the event store.
 */
export const defaultEventRateLimit: EventRateLimit = { maxRequests: 120, windowSeconds: 60 };

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * One batch counted, atomically: the window starts with the first batch (a fixed window that expires
 * whole); over the limit, the seconds left of it (a key that lost its expiry is given one again, so no
 * satellite is refused for good). KEYS[1] the satellite's counter, ARGV[1] the window in seconds,
 * ARGV[2] the batches a window allows. Answers 0 when the batch is allowed.
 */
const countBatch = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
if count <= tonumber(ARGV[2]) then return 0 end
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return math.max(ttl, 1)`;

/**
 * Per-satellite limit of event batches, counted in Redis so it holds across every gateway replica (the
 * identity module keeps its login limits there too). One script per batch, so one command and one
 * answer: the transaction it replaces (MULTI, SET NX, INCR, TTL, EXEC) cost gateway-api a tenth of its
 * CPU per batch in the client alone.
 *
 * When Redis does not answer the batch is let through and a warning logged: the caller is an
 * authenticated satellite, the body size and the stream limits still bound what it can do, and refusing
 * every satellite's events whenever Redis restarts would cost more than a minute without the limit.
 */
export function createEventRateLimiter(options: {
  redis: Redis;
  keyPrefix: string;
  logger: Logger;
  limit?: EventRateLimit;
}) {
  const limit = options.limit ?? defaultEventRateLimit;
  const key = (satelliteId: string) => `${options.keyPrefix}:events:rate:${satelliteId}`;
  let lastWarning = 0;

  return {
    limit,
    async check(satelliteId: string): Promise<RateDecision> {
      let retryAfter: unknown;
      try {
        retryAfter = await options.redis.eval(countBatch, 1, key(satelliteId), limit.windowSeconds, limit.maxRequests);
      } catch (error) {
        if (Date.now() - lastWarning > 10_000) {
          lastWarning = Date.now();
          options.logger.warn({ err: error }, 'event rate limit not checked: Redis did not answer');
        }
        return { allowed: true };
      }
      const seconds = Number(retryAfter);
      if (!(seconds > 0)) return { allowed: true };
      return { allowed: false, retryAfterSeconds: seconds };
    },
  };
}

export type EventRateLimiter = ReturnType<typeof createEventRateLimiter>;
