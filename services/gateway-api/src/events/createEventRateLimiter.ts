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
 * Per-satellite limit of event batches, counted in Redis so it holds across every gateway replica (the
 * identity module keeps its login limits there too). One atomic transaction per batch: start the window
 * if there is none, count, read the time left. Windows are fixed and expire whole.
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
      let results: [Error | null, unknown][] | null;
      try {
        results = await options.redis
          .multi()
          .set(key(satelliteId), '0', 'EX', limit.windowSeconds, 'NX')
          .incr(key(satelliteId))
          .ttl(key(satelliteId))
          .exec();
      } catch (error) {
        if (Date.now() - lastWarning > 10_000) {
          lastWarning = Date.now();
          options.logger.warn({ err: error }, 'event rate limit not checked: Redis did not answer');
        }
        return { allowed: true };
      }
      const count = Number(results?.[1]?.[1] ?? 0);
      if (count <= limit.maxRequests) return { allowed: true };
      const ttl = Number(results?.[2]?.[1] ?? limit.windowSeconds);
      return { allowed: false, retryAfterSeconds: Math.max(1, ttl) };
    },
  };
}

export type EventRateLimiter = ReturnType<typeof createEventRateLimiter>;
