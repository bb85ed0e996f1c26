import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export type RateLimit = { maxAttempts: number; windowSeconds: number };

export type LoginRateLimits = {
  /** Attempts on one account without a success in between. A success clears the count. */
  account: RateLimit;
  /** Attempts from one client address, successes included (one address guessing many accounts). */
  address: RateLimit;
};

export const defaultLoginRateLimits: LoginRateLimits = {
  account: { maxAttempts: 5, windowSeconds: 15 * 60 },
  address: { maxAttempts: 50, windowSeconds: 15 * 60 },
};

export type LoginAttempt =
  | { allowed: true }
  | { allowed: false; scope: 'account' | 'address'; retryAfterSeconds: number };

/**
 * Login rate limiting on Redis, so the limits hold across every gateway replica. Each attempt is
 * counted before the password is checked (one atomic INCR per key), so a burst of parallel guesses
 * cannot slip past the check, and a refused attempt costs no Argon2 run. Windows are fixed: they start
 * at the first attempt and expire whole. Account keys hold a hash of the e-mail address, not the address.
 */
export function createLoginRateLimiter(options: { redis: Redis; keyPrefix: string; limits?: LoginRateLimits }) {
  const { redis } = options;
  const limits = options.limits ?? defaultLoginRateLimits;
  const accountKey = (email: string) =>
    `${options.keyPrefix}:identity:login:account:${createHash('sha256').update(email.toLowerCase()).digest('hex')}`;
  const addressKey = (address: string) => `${options.keyPrefix}:identity:login:address:${address}`;

  return {
    limits,
    async attempt(email: string, address: string): Promise<LoginAttempt> {
      const account = accountKey(email);
      const addr = addressKey(address);
      const results = await redis
        .multi()
        .set(account, '0', 'EX', limits.account.windowSeconds, 'NX')
        .incr(account)
        .ttl(account)
        .set(addr, '0', 'EX', limits.address.windowSeconds, 'NX')
        .incr(addr)
        .ttl(addr)
        .exec();
      if (!results) throw new Error('the rate-limit transaction was aborted');
      const value = (index: number) => {
        const [error, result] = results[index] ?? [];
        if (error) throw error;
        return Number(result);
      };
      if (value(4) > limits.address.maxAttempts) {
        return { allowed: false, scope: 'address', retryAfterSeconds: Math.max(1, value(5)) };
      }
      if (value(1) > limits.account.maxAttempts) {
        return { allowed: false, scope: 'account', retryAfterSeconds: Math.max(1, value(2)) };
      }
      return { allowed: true };
    },
    async succeeded(email: string): Promise<void> {
      await redis.del(accountKey(email));
    },
  };
}

export type LoginRateLimiter = ReturnType<typeof createLoginRateLimiter>;
