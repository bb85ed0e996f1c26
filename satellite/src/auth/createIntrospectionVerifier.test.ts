import { describe, expect, it } from 'vitest';
import { createIntrospectionVerifier, identityOf } from './createIntrospectionVerifier.ts';

const resource = new URL('https://sat.test/mcp');
const nowSeconds = 1_900_000_000;

/** The backend's introspection endpoint as a function: what it answers, and how often it was asked. */
function backend(answer: () => Response) {
  const calls: Array<{ token: string | null; authorization: string | null }> = [];
  const fetchFn = (async (_input: unknown, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    calls.push({
      token: new URLSearchParams(init?.body as URLSearchParams).get('token'),
      authorization: headers.get('authorization'),
    });
    return answer();
  }) as typeof fetch;
  return { fetchFn, calls };
}

const active = (overrides: Record<string, unknown> = {}) =>
  Response.json({
    active: true,
    sub: 'user-1',
    team_id: 'team-a',
    scope: 'mcp',
    exp: nowSeconds + 3600,
    client_id: 'orb_client_1',
    token_type: 'Bearer',
    token_kind: 'oauth',
    aud: resource.href,
    ...overrides,
  });

function verifier(fetchFn: typeof fetch, clock: { now: number }, teamId: string | null = null) {
  return createIntrospectionVerifier({
    introspectionUrl: new URL('https://backend.test/introspect'),
    credential: { current: () => 'the-credential' },
    resource,
    teamId,
    cacheTtlMs: 30_000,
    now: () => clock.now,
    fetch: fetchFn,
  });
}

describe('createIntrospectionVerifier', () => {
  it('asks the backend once per cache lifetime, with the satellite credential, and reads the identity', async () => {
    const clock = { now: nowSeconds * 1000 };
    const { fetchFn, calls } = backend(() => active());
    const verify = verifier(fetchFn, clock);
    const auth = await verify.verifyAccessToken('tok');
    expect(auth).toMatchObject({ clientId: 'orb_client_1', scopes: ['mcp'], expiresAt: nowSeconds + 3600 });
    expect(identityOf(auth)).toEqual({ userId: 'user-1', teamId: 'team-a', tokenKind: 'oauth' });
    await verify.verifyAccessToken('tok');
    clock.now += 29_999;
    await verify.verifyAccessToken('tok');
    expect(calls).toEqual([{ token: 'tok', authorization: 'Bearer the-credential' }]);
    clock.now += 1;
    await verify.verifyAccessToken('tok');
    expect(calls).toHaveLength(2);
  });

  it('shares one request among concurrent checks of a token', async () => {
    const { fetchFn, calls } = backend(() => active());
    const verify = verifier(fetchFn, { now: nowSeconds * 1000 });
    await Promise.all([verify.verifyAccessToken('t'), verify.verifyAccessToken('t'), verify.verifyAccessToken('t')]);
    expect(calls).toHaveLength(1);
  });

  it('caches an inactive answer too, and never past the token expiry', async () => {
    const clock = { now: nowSeconds * 1000 };
    let answer = () => Response.json({ active: false });
    const { fetchFn, calls } = backend(() => answer());
    const verify = verifier(fetchFn, clock);
    await expect(verify.verifyAccessToken('dead')).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(verify.verifyAccessToken('dead')).rejects.toMatchObject({ code: 'invalid_token' });
    expect(calls).toHaveLength(1);
    answer = () => active({ exp: nowSeconds + 5 });
    await verify.verifyAccessToken('short');
    clock.now += 5000;
    await verify.verifyAccessToken('short');
    expect(calls).toHaveLength(3);
  });

  it('refuses a token issued for another resource, and another team at a team satellite', async () => {
    const elsewhere = backend(() => active({ aud: 'https://other.test/mcp' }));
    await expect(verifier(elsewhere.fetchFn, { now: 0 }).verifyAccessToken('x')).rejects.toMatchObject({
      code: 'invalid_token',
    });
    const sameResource = backend(() => active({ aud: `${resource.href}/` }));
    await expect(verifier(sameResource.fetchFn, { now: 0 }).verifyAccessToken('x')).resolves.toBeTruthy();
    const otherTeam = backend(() => active({ team_id: 'team-b' }));
    await expect(verifier(otherTeam.fetchFn, { now: 0 }, 'team-a').verifyAccessToken('x')).rejects.toMatchObject({
      code: 'invalid_token',
    });
    const personal = backend(() => active({ aud: undefined, token_kind: 'personal' }));
    await expect(verifier(personal.fetchFn, { now: 0 }, 'team-a').verifyAccessToken('x')).resolves.toBeTruthy();
  });

  it('reports an unreachable or failing backend as a server error and caches nothing', async () => {
    const failing = backend(() => new Response('no', { status: 502 }));
    const verify = verifier(failing.fetchFn, { now: 0 });
    await expect(verify.verifyAccessToken('x')).rejects.toMatchObject({ code: 'server_error' });
    await expect(verify.verifyAccessToken('x')).rejects.toMatchObject({ code: 'server_error' });
    expect(failing.calls).toHaveLength(2);
    expect(verify.size()).toBe(0);
    const garbled = backend(() => Response.json({ active: 'maybe' }));
    await expect(verifier(garbled.fetchFn, { now: 0 }).verifyAccessToken('x')).rejects.toMatchObject({
      code: 'server_error',
    });
    const down = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    await expect(verifier(down, { now: 0 }).verifyAccessToken('x')).rejects.toMatchObject({ code: 'server_error' });
  });

  it('re-reads the API key: a 401 hands the key to the backend link, and a replaced key is retried once', async () => {
    let key: string | null = null;
    const refusedKeys: string[] = [];
    const { fetchFn, calls } = backend(() =>
      calls.at(-1)?.authorization === 'Bearer new-key' ? active() : new Response(null, { status: 401 }),
    );
    const verify = createIntrospectionVerifier({
      introspectionUrl: new URL('https://backend.test/introspect'),
      credential: {
        current: () => key,
        refused: async (refused) => {
          refusedKeys.push(refused);
          key = 'new-key';
          return true;
        },
      },
      resource,
      teamId: null,
      cacheTtlMs: 30_000,
      now: () => nowSeconds * 1000,
      fetch: fetchFn,
    });
    // Not registered yet: a server error, and nothing asked.
    await expect(verify.verifyAccessToken('tok')).rejects.toMatchObject({ code: 'server_error' });
    expect(calls).toHaveLength(0);
    key = 'old-key';
    await verify.verifyAccessToken('tok');
    expect(refusedKeys).toEqual(['old-key']);
    expect(calls.map((c) => c.authorization)).toEqual(['Bearer old-key', 'Bearer new-key']);
  });
});
