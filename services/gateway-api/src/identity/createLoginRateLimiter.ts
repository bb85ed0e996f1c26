import { createHash } from 'node:crypto';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { Redis } from 'ioredis';

export type RateLimit = { maxAttempts: number; windowSeconds: number };

export type LoginRateLimits = {
  /**
   * Attempts on one account from one client address without a success in between: someone guessing
   * one password from one place is stopped here, and only there: the account stays open to its owner
   * everywhere else.
   */
  accountAtAddress: RateLimit;
  /**
   * Attempts on one account from every address together, counting only attempts the other two limits
   * let through, so no single address can push it: it slows guessing spread over many addresses.
   */
  account: RateLimit;
  /** Attempts from one client address, successes included (one address guessing many accounts). */
  address: RateLimit;
};

export const defaultLoginRateLimits: LoginRateLimits = {
  accountAtAddress: { maxAttempts: 5, windowSeconds: 15 * 60 },
  account: { maxAttempts: 100, windowSeconds: 15 * 60 },
  address: { maxAttempts: 50, windowSeconds: 15 * 60 },
};

export type LoginAttempt =
  | { allowed: true }
  | {
      allowed: false;
      scope: 'account_at_address' | 'account' | 'address';
      retryAfterSeconds: number;
      /** The first refusal of its window (the count just passed the limit): what the audit log records. */
      first: boolean;
    };

/**
 * Login rate limiting on Redis, so the limits hold across every gateway replica. Each attempt is
 * counted before the password is checked (atomic INCRs), so a burst of parallel guesses cannot slip
 * past the check, and a refused attempt costs no Argon2 run. Windows are fixed: they start at the first
 * attempt and expire whole. Keys hold a hash of the e-mail address, not the address itself.
 *
 * The address and the account-at-address counters are checked first; only an attempt they let through
 * counts on the account as a whole. A burst from one address therefore locks the account at that
 * address only (at most `accountAtAddress.maxAttempts` of its attempts reach the account counter),
 * never everywhere.
 *
 * Without Redis no attempt can be counted, and a login that went on regardless would open every account
 * to unlimited guessing for as long as Redis is away: an attempt is then refused with `unavailable` (503),
 * at once, since the client fails its commands instead of queueing them (createRedisClient). Clearing
 * the counts after a success is not worth failing a correct login for: that failure is only logged.
 */
export function createLoginRateLimiter(options: {
  redis: Redis;
  keyPrefix: string;
  logger: Logger;
  limits?: LoginRateLimits;
}) {
  const { redis, logger } = options;
  const limits = options.limits ?? defaultLoginRateLimits;
  const base = `${options.keyPrefix}:identity:login`;
  const accountOf = (email: string) => createHash('sha256').update(email.toLowerCase()).digest('hex');
  const accountKey = (email: string) => `${base}:account:${accountOf(email)}`;
  const pairKey = (email: string, address: string) => `${base}:account_at:${accountOf(email)}:${address}`;
  const addressKey = (address: string) => `${base}:address:${address}`;

  /** INCR of each key (created with its window when new); each count with its time to live. */
  async function count(keys: Array<{ key: string; limit: RateLimit }>) {
    const transaction = redis.multi();
    for (const { key, limit } of keys) {
      transaction.set(key, '0', 'EX', limit.windowSeconds, 'NX').incr(key).ttl(key);
    }
    let results: Awaited<ReturnType<typeof transaction.exec>>;
    try {
      results = await transaction.exec();
    } catch (cause) {
      throw new AppError('unavailable', 'Login is unavailable for a moment: its attempt limits cannot be checked', {
        details: { reason: 'redis_unavailable', retry_after_seconds: 5 },
        cause,
      });
    }
    if (!results) throw new Error('the rate-limit transaction was aborted');
    const value = (index: number) => {
      const [error, result] = results[index] ?? [];
      if (error) throw error;
      return Number(result);
    };
    return keys.map((_, i) => ({ count: value(i * 3 + 1), ttl: Math.max(1, value(i * 3 + 2)) }));
  }

  return {
    limits,
    async attempt(email: string, address: string): Promise<LoginAttempt> {
      const [byAddress, pair] = await count([
        { key: addressKey(address), limit: limits.address },
        { key: pairKey(email, address), limit: limits.accountAtAddress },
      ]);
      if (byAddress && byAddress.count > limits.address.maxAttempts) {
        const first = byAddress.count === limits.address.maxAttempts + 1;
        return { allowed: false, scope: 'address', retryAfterSeconds: byAddress.ttl, first };
      }
      if (pair && pair.count > limits.accountAtAddress.maxAttempts) {
        const first = pair.count === limits.accountAtAddress.maxAttempts + 1;
        return { allowed: false, scope: 'account_at_address', retryAfterSeconds: pair.ttl, first };
      }
      const [account] = await count([{ key: accountKey(email), limit: limits.account }]);
      if (account && account.count > limits.account.maxAttempts) {
        const first = account.count === limits.account.maxAttempts + 1;
        return { allowed: false, scope: 'account', retryAfterSeconds: account.ttl, first };
      }
      return { allowed: true };
    },
    /** A success ends the account's counts (everywhere, and at this address); the address keeps its own. */
    async succeeded(email: string, address: string): Promise<void> {
      try {
        await redis.del(accountKey(email), pairKey(email, address));
      } catch (error) {
        logger.warn({ err: error }, 'login succeeded, but its attempt counts could not be cleared (Redis)');
      }
    },
  };
}

export type LoginRateLimiter = ReturnType<typeof createLoginRateLimiter>;
