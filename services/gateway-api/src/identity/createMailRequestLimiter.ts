import { createHash } from 'node:crypto';
import { AppError } from '@orbital/errors';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import type { RateLimit } from './createLoginRateLimiter.ts';

export type MailRequestLimits = {
  /** Requests for one address (a reset, a new confirmation link), so nobody floods a mailbox. */
  perAddress: RateLimit;
  /** Requests from one client address, whatever the e-mail addresses. */
  perClient: RateLimit;
};

export const defaultMailRequestLimits: MailRequestLimits = {
  perAddress: { maxAttempts: 3, windowSeconds: 15 * 60 },
  perClient: { maxAttempts: 20, windowSeconds: 15 * 60 },
};

/**
 * Limits the public requests that send a mail (registration, password reset, a new confirmation link) on
 * Redis, shared by every replica: fixed windows counted before anything is looked up, so the answer
 * says nothing about whether an address has an account. Over a limit: 429 with Retry-After; while Redis
 * is away, 503 `unavailable` with Retry-After.
 */
export function createMailRequestLimiter(options: { redis: Redis; keyPrefix: string; limits?: MailRequestLimits }) {
  const limits = options.limits ?? defaultMailRequestLimits;
  const base = `${options.keyPrefix}:identity:mail`;
  const hashOf = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

  async function counted(key: string, limit: RateLimit): Promise<number | null> {
    let results: Awaited<ReturnType<ReturnType<Redis['multi']>['exec']>>;
    try {
      results = await options.redis.multi().set(key, '0', 'EX', limit.windowSeconds, 'NX').incr(key).ttl(key).exec();
    } catch (cause) {
      // Refused, not let through: without its count, anyone could have mail sent to any address as often as
      // they liked for as long as Redis is away. The client fails at once while Redis is down, so this is prompt.
      throw new AppError('unavailable', 'Mail requests are unavailable for a moment: their limits cannot be checked', {
        details: { reason: 'redis_unavailable', retry_after_seconds: 5 },
        cause,
      });
    }
    if (!results) throw new Error('the rate-limit transaction was aborted');
    const count = Number(results[1]?.[1]);
    const ttl = Number(results[2]?.[1]);
    return count > limit.maxAttempts ? Math.max(1, ttl) : null;
  }

  return {
    /** Counts one request of `purpose`; throws `rate_limited` (and sets Retry-After) over a limit. */
    async attempt(purpose: string, email: string, client: string, reply: FastifyReply): Promise<void> {
      const retryAfter =
        (await counted(`${base}:${purpose}:client:${client}`, limits.perClient)) ??
        (await counted(`${base}:${purpose}:address:${hashOf(email)}`, limits.perAddress));
      if (retryAfter === null) return;
      reply.header('retry-after', String(retryAfter));
      throw new AppError('rate_limited', 'Too many requests for mail; try again later', {
        details: { retry_after_seconds: retryAfter },
      });
    },
  };
}
export type MailRequestLimiter = ReturnType<typeof createMailRequestLimiter>;
