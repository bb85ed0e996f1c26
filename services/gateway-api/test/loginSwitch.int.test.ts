import { beforeAll, describe, expect, it } from 'vitest';
import { adminCredentials, bearer, callerAs, login, type Session } from './identityStack.ts';
import { approve, exchangeCode, pkcePair, postForm, redirectUri, registerClient } from './oauthFlow.ts';
import { useIdentityStack } from './useIdentityStack.ts';

/**
 * `global.enable_login` off: every way of obtaining a new session or token refuses with
 * `login_disabled`, on every replica at once, while sessions already handed out keep working, so the
 * global admin who turned it off can turn it back on.
 */
const identity = useIdentityStack({ gateways: 2 });
let member: Session;
let teamId: string;
const memberCredentials = { email: 'member@orbital.test', password: 'a long enough pass phrase 4 tests' };

beforeAll(async () => {
  const asAdmin = identity.asAdmin();
  await asAdmin('POST', '/api/users', { ...memberCredentials, name: 'Member' });
  teamId = (await asAdmin('POST', '/api/teams', { slug: 'switch', name: 'Switch' })).json().data.id;
  await asAdmin('POST', `/api/teams/${teamId}/members`, { email: memberCredentials.email, role: 'team_admin' });
  member = await login(identity.replica(), memberCredentials.email, memberCredentials.password);
});

const setLogin = async (value: boolean, replica = 0) => {
  const response = await identity.asAdmin(replica)('PUT', '/api/settings/global.enable_login', { value });
  expect(response.statusCode).toBe(200);
};

describe('the login switch', () => {
  it('refuses password logins on every replica at once, and takes them again when turned back on', async () => {
    const other = identity.stack.gateways[1]?.app;
    if (!other) throw new Error('no second replica');
    await setLogin(false, 0);
    for (const { email, password } of [adminCredentials, memberCredentials]) {
      const refused = await other.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({
        success: false,
        error: { code: 'login_disabled', message: expect.stringContaining('Login is turned off') },
      });
      expect(refused.cookies).toEqual([]);
    }
    // A wrong password is refused the same way: nothing is checked or counted while login is off.
    const wrong = await other.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: adminCredentials.email, password: 'not the password at all' },
    });
    expect(wrong.json().error.code).toBe('login_disabled');

    // The admin's session still works (on the other replica too) and turns login back on.
    expect(
      (await other.inject({ method: 'GET', url: '/api/users/me', headers: bearer(identity.admin) })).statusCode,
    ).toBe(200);
    await setLogin(true, 1);
    expect((await login(other, adminCredentials.email, adminCredentials.password)).token).toBeTruthy();
  });

  it("keeps other people's sessions until they end, as documented", async () => {
    await setLogin(false);
    try {
      const app = identity.stack.gateways[0]?.app;
      const me = await app?.inject({ method: 'GET', url: '/api/users/me', headers: bearer(member) });
      expect(me?.statusCode).toBe(200);
    } finally {
      await setLogin(true);
    }
  });

  it('refuses personal access tokens while login is off', async () => {
    const app = identity.stack.gateways[1]?.app;
    if (!app) throw new Error('no replica');
    const asMember = callerAs(app, member);
    await setLogin(false);
    try {
      const refused = await asMember('POST', '/api/users/me/access-tokens', { team_id: teamId, name: 'laptop' });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('login_disabled');
      expect((await asMember('GET', '/api/users/me/access-tokens')).json().data).toEqual([]);
    } finally {
      await setLogin(true);
    }
    expect(
      (await asMember('POST', '/api/users/me/access-tokens', { team_id: teamId, name: 'laptop' })).statusCode,
    ).toBe(201);
  });

  it('refuses OAuth consent and the exchange of a code given before login was turned off', async () => {
    const app = identity.stack.gateways[0]?.app;
    if (!app) throw new Error('no replica');
    const client = await registerClient(app);
    const earlier = pkcePair();
    const granted = await approve(app, member, { clientId: client.client_id, teamId, challenge: earlier.challenge });
    const code = granted.searchParams.get('code');
    expect(code).toBeTruthy();
    await setLogin(false);
    try {
      const pkce = pkcePair();
      const consent = await postForm(
        app,
        '/authorize',
        {
          client_id: client.client_id,
          redirect_uri: redirectUri,
          response_type: 'code',
          code_challenge: pkce.challenge,
          code_challenge_method: 'S256',
          state: 'st4te',
          team_id: teamId,
          decision: 'approve',
        },
        { cookie: `session=${member.cookie}` },
      );
      expect(consent.statusCode).toBe(302);
      const answer = new URL(consent.headers.location as string);
      expect(answer.searchParams.get('error')).toBe('access_denied');
      expect(answer.searchParams.get('error_description')).toContain('Login is turned off');
      expect(answer.searchParams.get('code')).toBeNull();
      const page = await app.inject({
        method: 'GET',
        url: `/authorize?client_id=${client.client_id}&response_type=code&code_challenge_method=S256&code_challenge=${pkce.challenge}`,
        headers: { cookie: `session=${member.cookie}` },
      });
      expect(page.statusCode).toBe(302);
      expect(new URL(page.headers.location as string).searchParams.get('error')).toBe('access_denied');
      const exchange = await exchangeCode(app, {
        clientId: client.client_id,
        code: code ?? '',
        verifier: earlier.verifier,
      });
      expect(exchange.statusCode).toBe(400);
      expect(exchange.json()).toMatchObject({
        error: 'invalid_grant',
        error_description: expect.stringContaining('Login'),
      });
    } finally {
      await setLogin(true);
    }
  });
});
