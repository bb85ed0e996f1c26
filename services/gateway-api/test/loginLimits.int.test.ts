import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCredentials, bearer, type IdentityStack, login, startIdentityStack } from './identityStack.ts';

/**
 * Brute force is slowed (per account and per address, on Redis) and logged as security events, and a
 * session stops working the moment it expires. The clock is the test's, so expiry needs no waiting.
 */
let stack: IdentityStack;
let app: FastifyInstance;
let clock = Date.now();
const addressLimit = 20;
let attempts = 0;
const victim = { email: 'victim@orbital.test', password: 'tall green pass phrase 123' };

async function attempt(email: string, password: string) {
  attempts += 1;
  return app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
}

beforeAll(async () => {
  stack = await startIdentityStack({
    now: () => clock,
    sessionTtlMs: 3600 * 1000,
    loginRateLimits: {
      account: { maxAttempts: 5, windowSeconds: 900 },
      address: { maxAttempts: addressLimit, windowSeconds: 900 },
    },
  });
  app = stack.gateways[0]?.app as FastifyInstance;
  attempts += 1;
  const admin = await login(app, adminCredentials.email, adminCredentials.password);
  const created = await app.inject({
    method: 'POST',
    url: '/api/users',
    headers: bearer(admin),
    payload: { ...victim, name: 'Victim' },
  });
  expect(created.statusCode).toBe(201);
});

afterAll(async () => {
  await stack?.stop();
});

describe('login rate limiting', () => {
  it('refuses an account after 5 failed attempts, even with the right password, and logs each one', async () => {
    for (let i = 0; i < 5; i++) {
      const guess = await attempt(victim.email, `wrong guess number ${i}`);
      expect(guess.statusCode).toBe(401);
    }
    const right = await attempt(victim.email, victim.password);
    expect(right.statusCode).toBe(429);
    expect(right.json()).toMatchObject({ success: false, error: { code: 'rate_limited' } });
    const retryAfter = Number(right.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);

    const events = stack.logs.lines().filter((l) => l.account === victim.email);
    expect(events.filter((l) => l.event === 'auth.login_failed')).toHaveLength(5);
    expect(events.filter((l) => l.event === 'auth.login_rate_limited')).toEqual([
      expect.objectContaining({ level: 'warn', scope: 'account', address: '127.0.0.1' }),
    ]);
    for (const line of events) expect(JSON.stringify(line)).not.toMatch(/wrong guess|pass phrase/);
  });

  it('leaves other accounts alone', async () => {
    expect((await attempt(adminCredentials.email, adminCredentials.password)).statusCode).toBe(200);
  });

  it('refuses an address that tries too many accounts', async () => {
    while (attempts < addressLimit) {
      expect((await attempt(`someone-${attempts}@orbital.test`, 'some guessed password')).statusCode).toBe(401);
    }
    const over = await attempt('someone-else@orbital.test', 'some guessed password');
    expect(over.statusCode).toBe(429);
    expect(
      stack.logs.lines().filter((l) => l.event === 'auth.login_rate_limited' && l.scope === 'address'),
    ).toHaveLength(1);
  });
});

describe('session expiry', () => {
  it('refuses a session from the moment it expires, cached or not', async () => {
    // A new address: the one above is now limited.
    const response = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '10.1.2.3',
      payload: { email: adminCredentials.email, password: adminCredentials.password },
    });
    expect(response.statusCode).toBe(200);
    const token = response.json().data.token as string;
    const me = () => app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${token}` } });
    expect((await me()).statusCode).toBe(200);
    clock += 3600 * 1000 - 1;
    expect((await me()).statusCode).toBe(200);
    clock += 1;
    expect((await me()).statusCode).toBe(401);
  });
});
