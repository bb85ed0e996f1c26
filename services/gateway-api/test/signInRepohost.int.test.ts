import { type RepohostAccount, type RepohostProvider, startRepohostProvider } from '@orbital/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerAs, type IdentityStack, loginAdmin, startIdentityStack } from './identityStack.ts';
import { callBack, configure, expectFailure, expectReplaysRefused, expectSignedIn, startSignIn } from './signInFlow.ts';

/**
 * "Sign in with GitHub" against a local GitHub-compatible provider (the test's peer): the OAuth web flow
 * with state and PKCE, the account and its verified primary address read from the API, linking or
 * creating the user, and every way it can fail. The clock is the test's, so an expired sign-in needs no
 * waiting.
 */
let stack: IdentityStack;
let app: FastifyInstance;
let provider: RepohostProvider;
let admin: ReturnType<typeof callerAs>;
let clock = Date.now();
const pageUrl = 'https://console.orbital.test';

const octo = (id: number, email: string, verified = true): RepohostAccount => ({
  id,
  login: `octo${id}`,
  name: `Octo ${id}`,
  emails: [
    { email: `other${id}@elsewhere.test`, primary: false, verified: true },
    { email, primary: true, verified },
  ],
});

/** Start, pass through the provider, and come back with the browser's cookie. */
async function signIn(account: RepohostAccount | null, next?: string) {
  provider.signInAs(account);
  const started = await startSignIn(app, 'repohost', next);
  const answer = await providerAnswer(started.authorizeUrl);
  return { started, answer, response: await callBack(app, answer, started.binding) };
}

async function providerAnswer(authorizeUrl: URL): Promise<URL> {
  const response = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location') as string);
}

beforeAll(async () => {
  stack = await startIdentityStack({ now: () => clock });
  app = stack.app;
  provider = await startRepohostProvider();
  admin = callerAs(app, await loginAdmin(app));
  await configure(admin, {
    'global.page_url': pageUrl,
    'repohost.oauth.client_id': provider.clientId,
    'repohost.oauth.client_secret': provider.clientSecret,
    'repohost.oauth.callback_url': 'http://localhost:3000/api/auth/repohost/callback',
    'repohost.oauth.web_url': provider.webUrl,
    'repohost.oauth.api_url': provider.apiUrl,
    'repohost.oauth.enabled': 'true',
  });
});

afterAll(async () => {
  await provider?.stop();
  await stack?.stop();
});

beforeEach(() => {
  clock = Date.now();
});

describe('sign in with the code-hosting account', () => {
  it('is offered on the login page only while it is enabled and configured', async () => {
    const methods = async () => (await app.inject({ method: 'GET', url: '/api/auth/methods' })).json().data;
    expect(await methods()).toEqual({
      login_enabled: true,
      password: true,
      repohost: { name: 'GitHub', start_url: '/api/auth/repohost/start' },
      oidc: null,
    });
    await configure(admin, { 'repohost.oauth.client_id': '' });
    expect((await methods()).repohost).toBeNull();
    expectFailure(await app.inject({ method: 'GET', url: '/api/auth/repohost/start' }), 503, 'misconfigured');
    await configure(admin, { 'repohost.oauth.client_id': provider.clientId, 'repohost.oauth.enabled': 'false' });
    expect((await methods()).repohost).toBeNull();
    expectFailure(await app.inject({ method: 'GET', url: '/api/auth/repohost/start' }), 404, 'not_configured');
    await configure(admin, { 'repohost.oauth.enabled': 'true' });
  });

  it('sends the browser to the authorize page with state and an S256 PKCE challenge', async () => {
    const { authorizeUrl } = await startSignIn(app, 'repohost');
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${provider.webUrl}/login/oauth/authorize`);
    expect(Object.fromEntries(authorizeUrl.searchParams)).toEqual({
      client_id: provider.clientId,
      redirect_uri: 'http://localhost:3000/api/auth/repohost/callback',
      scope: 'user:email',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
  });

  it('creates a global_user from a new account and lands on the console page it started from', async () => {
    const { response } = await signIn(octo(101, 'Newcomer@Example.test'), '/teams?x=1');
    const { location, token } = expectSignedIn(response);
    expect(location).toBe(`${pageUrl}/teams?x=1`);
    // The verifier was sent with the code, and it is the one the challenge was made from (the provider checked).
    expect(provider.tokenRequests.at(-1)?.code_verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    const me = await app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${token}` } });
    expect(me.json().data).toMatchObject({
      email: 'Newcomer@Example.test',
      name: 'Octo 101',
      global_role: 'global_user',
    });
    // The same account again is the same user, whatever its address now says.
    const again = await signIn({ ...octo(101, 'renamed@example.test'), name: null });
    const second = expectSignedIn(again.response);
    const meAgain = await app.inject({
      method: 'GET',
      url: '/api/users/me',
      headers: { authorization: `Bearer ${second.token}` },
    });
    expect(meAgain.json().data.id).toBe(me.json().data.id);
    // A user without a password cannot log in with one.
    const login = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'Newcomer@Example.test', password: 'any password at all 123' },
    });
    expect(login.statusCode).toBe(401);
  });

  it('links an existing user by the verified primary address, whatever its case', async () => {
    const created = await admin('POST', '/api/users', {
      email: 'existing@example.test',
      name: 'Existing Person',
      password: 'a long enough pass phrase 42',
    });
    expect(created.statusCode).toBe(201);
    const { response } = await signIn(octo(102, 'EXISTING@example.test'));
    const { token } = expectSignedIn(response);
    const me = await app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${token}` } });
    expect(me.json().data).toMatchObject({ id: created.json().data.id, name: 'Existing Person' });
  });

  it('refuses an account whose primary address is not verified, creating nobody', async () => {
    const { response } = await signIn(octo(103, 'unverified@example.test', false));
    expectFailure(response, 403, 'email_not_verified');
    expect(response.body).toContain('Sign-in with GitHub failed');
    expect(response.body).toContain(`href="${pageUrl}/login"`);
    const users = (await admin('GET', '/api/users?q=unverified')).json().data.items as Array<{ email: string }>;
    expect(users).toEqual([]);
  });

  it('refuses a replayed callback, a replayed code, an unknown state and a callback from another browser', async () => {
    const first = await signIn(octo(104, 'replay@example.test'));
    expectSignedIn(first.response);
    await expectReplaysRefused(app, 'repohost', first);
    // A state nobody issued.
    const forged = new URL(first.answer);
    forged.searchParams.set('state', 'A'.repeat(43));
    expectFailure(await callBack(app, forged, first.started.binding), 400, 'invalid_state');
    // A genuine answer brought to a browser that did not start the sign-in (login CSRF): no cookie, or another's.
    provider.signInAs(octo(105, 'victim@example.test'));
    const carried = await startSignIn(app, 'repohost');
    const answer = await providerAnswer(carried.authorizeUrl);
    expectFailure(await callBack(app, answer), 400, 'state_mismatch');
    const other = await startSignIn(app, 'repohost');
    const again = await startSignIn(app, 'repohost');
    const answerAgain = await providerAnswer(again.authorizeUrl);
    expectFailure(await callBack(app, answerAgain, other.binding), 400, 'state_mismatch');
  });

  it('refuses a sign-in that took longer than the state lives', async () => {
    provider.signInAs(octo(106, 'slow@example.test'));
    const started = await startSignIn(app, 'repohost');
    const answer = await providerAnswer(started.authorizeUrl);
    clock += 11 * 60_000;
    expectFailure(await callBack(app, answer, started.binding), 400, 'state_expired');
  });

  it('refuses a disabled account, and lets it in again once enabled', async () => {
    const first = expectSignedIn((await signIn(octo(111, 'disabled@example.test'))).response);
    const me = await app.inject({
      method: 'GET',
      url: '/api/users/me',
      headers: { authorization: `Bearer ${first.token}` },
    });
    const userId = me.json().data.id;
    expect((await admin('PUT', `/api/users/${userId}`, { disabled: true })).statusCode).toBe(200);
    expectFailure((await signIn(octo(111, 'disabled@example.test'))).response, 403, 'account_disabled');
    expect((await admin('PUT', `/api/users/${userId}`, { disabled: false })).statusCode).toBe(200);
    expectSignedIn((await signIn(octo(111, 'disabled@example.test'))).response);
  });

  it('says so when the person cancels at the provider', async () => {
    const { response } = await signIn(null);
    expectFailure(response, 401, 'access_denied');
  });

  it('answers 503 with a clear page while the provider is down, and works again after', async () => {
    provider.signInAs(octo(107, 'outage@example.test'));
    const started = await startSignIn(app, 'repohost');
    const answer = await providerAnswer(started.authorizeUrl);
    await provider.pause();
    try {
      const response = await callBack(app, answer, started.binding);
      expectFailure(response, 503, 'provider_unavailable');
      expect(response.body).toContain('cannot be reached');
    } finally {
      await provider.resume();
    }
    expectSignedIn((await signIn(octo(107, 'outage@example.test'))).response);
  });

  it('refuses every new sign-in while login is disabled', async () => {
    provider.signInAs(octo(108, 'gate@example.test'));
    const started = await startSignIn(app, 'repohost');
    const answer = await providerAnswer(started.authorizeUrl);
    await configure(admin, { 'global.enable_login': 'false' });
    try {
      expectFailure(await callBack(app, answer, started.binding), 403, 'login_disabled');
      expectFailure(await app.inject({ method: 'GET', url: '/api/auth/repohost/start' }), 403, 'login_disabled');
      const methods = (await app.inject({ method: 'GET', url: '/api/auth/methods' })).json().data;
      expect(methods).toEqual({ login_enabled: false, password: false, repohost: null, oidc: null });
    } finally {
      await configure(admin, { 'global.enable_login': 'true' });
    }
  });

  it('without the user:email scope, signs in a linked account but cannot create one', async () => {
    await configure(admin, { 'repohost.oauth.scope': 'read:user' });
    try {
      expectSignedIn((await signIn(octo(101, 'Newcomer@Example.test'))).response);
      expectFailure((await signIn(octo(109, 'noscope@example.test'))).response, 403, 'email_missing');
    } finally {
      await configure(admin, { 'repohost.oauth.scope': 'user:email' });
    }
  });

  it('never writes the client secret, a code or a token to the log', async () => {
    const { answer } = await signIn(octo(110, 'logs@example.test'));
    const logs = stack.logs.text();
    expect(logs).toContain('auth.sso_succeeded');
    expect(logs).not.toContain(provider.clientSecret);
    expect(logs).not.toContain(answer.searchParams.get('code'));
    expect(logs).not.toMatch(/gho_[0-9a-f]{32}/);
  });
});
