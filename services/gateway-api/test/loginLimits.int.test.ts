import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCredentials, bearer, type IdentityStack, loginAdmin, startIdentityStack } from './identityStack.ts';

/**
 * Brute force is slowed (per account at one address, per account everywhere, per address, on Redis)
 * and logged as security events, and a session stops working the moment it expires. The gateway sits
 * behind one trusted proxy (TRUST_PROXY=1), which appends the client's address to X-Forwarded-For: each
 * request below comes from the proxy's address with the client's in that header. The clock is the
 * test's, so expiry needs no waiting.
 */
let stack: IdentityStack;
let app: FastifyInstance;
let clock = Date.now();
const limits = {
  accountAtAddress: { maxAttempts: 3, windowSeconds: 900 },
  account: { maxAttempts: 8, windowSeconds: 900 },
  address: { maxAttempts: 20, windowSeconds: 900 },
};
const proxy = '10.0.0.2';
const victim = { email: 'victim@orbital.test', password: 'tall green pass phrase 123' };
const target = { email: 'target@orbital.test', password: 'short red pass phrase 456' };

/** A login as the proxy forwards it: from `client`, after whatever the client itself wrote in the header. */
async function attempt(client: string, credentials: { email: string; password: string }, written?: string) {
  return app.inject({
    method: 'POST',
    url: '/api/auth/login',
    remoteAddress: proxy,
    headers: { 'x-forwarded-for': written ? `${written}, ${client}` : client },
    payload: credentials,
  });
}
const wrong = (user: { email: string }, n: number) => ({ email: user.email, password: `wrong guess number ${n}` });

beforeAll(async () => {
  stack = await startIdentityStack({
    now: () => clock,
    sessionTtlHours: 1,
    loginRateLimits: limits,
    env: { TRUST_PROXY: '1' },
  });
  app = stack.app;
  const admin = await loginAdmin(app);
  for (const user of [victim, target]) {
    const created = await app.inject({
      method: 'POST',
      url: '/api/users',
      headers: bearer(admin),
      payload: { ...user, name: user.email },
    });
    expect(created.statusCode).toBe(201);
  }
});

afterAll(async () => {
  await stack?.stop();
});

describe('login rate limiting', () => {
  it('refuses an account at an address after 3 failed attempts there, even with the right password, and logs each', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt('203.0.113.5', wrong(victim, i))).statusCode).toBe(401);
    const right = await attempt('203.0.113.5', victim);
    expect(right.statusCode).toBe(429);
    expect(right.json()).toMatchObject({ success: false, error: { code: 'rate_limited' } });
    const retryAfter = Number(right.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);

    const events = stack.logs.lines().filter((l) => l.account === victim.email);
    expect(events.filter((l) => l.event === 'auth.login_failed')).toHaveLength(3);
    expect(events.filter((l) => l.event === 'auth.login_rate_limited')).toEqual([
      expect.objectContaining({ level: 'warn', scope: 'account_at_address', address: '203.0.113.5' }),
    ]);
    for (const line of events) expect(JSON.stringify(line)).not.toMatch(/wrong guess|pass phrase/);
  });

  it('counts the address the proxy saw, not one a client writes in X-Forwarded-For', async () => {
    const spoofed = await attempt('203.0.113.5', victim, '198.51.100.99');
    expect(spoofed.statusCode).toBe(429);
  });

  it('does not let a burst from one address lock the account out everywhere', async () => {
    for (let i = 0; i < 12; i++) await attempt('203.0.113.5', wrong(victim, i));
    // The burst reached the account-wide count 3 times only; the owner elsewhere logs in.
    expect((await attempt('198.51.100.7', victim)).statusCode).toBe(200);
  });

  it('slows guessing spread over many addresses with the account-wide limit', async () => {
    const addresses = ['192.0.2.10', '192.0.2.11', '192.0.2.12'];
    let answers: number[] = [];
    for (const address of addresses) {
      for (let i = 0; i < 3; i++) answers.push((await attempt(address, wrong(target, i))).statusCode);
    }
    // Eight attempts counted account-wide are allowed; the ninth, from yet another address, is refused.
    expect(answers).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 429]);
    answers = [(await attempt('192.0.2.99', target)).statusCode];
    expect(answers).toEqual([429]);
    expect(
      stack.logs.lines().filter((l) => l.event === 'auth.login_rate_limited' && l.scope === 'account'),
    ).toHaveLength(2);
  });

  it('leaves other accounts alone', async () => {
    const { email, password } = adminCredentials;
    expect((await attempt('203.0.113.5', { email, password })).statusCode).toBe(200);
  });

  it('refuses an address that tries too many accounts', async () => {
    let tried = 0;
    while (tried < limits.address.maxAttempts) {
      tried += 1;
      expect(
        (await attempt('203.0.113.77', { email: `someone-${tried}@orbital.test`, password: 'a guess' })).statusCode,
      ).toBe(401);
    }
    const over = await attempt('203.0.113.77', { email: 'someone-else@orbital.test', password: 'a guess' });
    expect(over.statusCode).toBe(429);
    // The request's id under the name bus and audit lines give it too, so one search finds the request.
    expect(stack.logs.lines().filter((l) => l.event === 'auth.login_rate_limited' && l.scope === 'address')).toEqual([
      expect.objectContaining({ address: '203.0.113.77', request_id: over.headers['x-request-id'] }),
    ]);
  });

  it('ignores X-Forwarded-For on a gateway that trusts no proxy', async () => {
    const direct = await stack.addGateway({ env: { TRUST_PROXY: 'false' } });
    const from = (header: string) =>
      direct.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: '10.7.7.7',
        headers: { 'x-forwarded-for': header },
        payload: wrong(victim, 99),
      });
    // Every attempt counts on 10.7.7.7, whatever the header claims.
    const answers = [];
    for (const header of ['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4']) answers.push((await from(header)).statusCode);
    expect(answers).toEqual([401, 401, 401, 429]);
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
