import { type OidcProvider, startOidcProvider } from '@orbital/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerAs, type IdentityStack, loginAdmin, startIdentityStack } from './identityStack.ts';
import { callBack, configure, expectFailure, expectReplaysRefused, expectSignedIn, startSignIn } from './signInFlow.ts';

/**
 * Single sign-on with a real OpenID Provider (oidc-provider, started here): discovery, the code flow with
 * PKCE, state and nonce, ID token validation by openid-client, just-in-time users, the claim mappings to
 * a global role and teams applied at every sign-in, and the refusals (unverified address, domain not
 * allowed, replayed code, provider down, broken settings).
 */
let stack: IdentityStack;
let app: FastifyInstance;
let provider: OidcProvider;
let admin: ReturnType<typeof callerAs>;
const callbackUrl = 'http://localhost:3000/api/auth/oidc/callback';
const pageUrl = 'https://console.orbital.test';
let teams: Record<string, string> = {};

const me = async (token: string) =>
  (await app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${token}` } })).json()
    .data;

async function signIn(sub: string, next?: string) {
  provider.signInAs(sub);
  const started = await startSignIn(app, 'oidc', next);
  const answer = await provider.authorize(started.authorizeUrl.href);
  return { started, answer, response: await callBack(app, answer, started.binding) };
}

function person(sub: string, claims: Record<string, unknown>) {
  provider.addAccount({ sub, claims: { email_verified: true, name: `Person ${sub}`, ...claims } });
}

beforeAll(async () => {
  stack = await startIdentityStack();
  app = stack.app;
  provider = await startOidcProvider({ redirectUris: [callbackUrl] });
  admin = callerAs(app, await loginAdmin(app));
  for (const slug of ['platform', 'data', 'web']) {
    const created = await admin('POST', '/api/teams', { slug, name: slug });
    expect(created.statusCode).toBe(201);
    teams[slug] = created.json().data.id;
  }
  teams = { ...teams };
  await configure(admin, {
    'global.page_url': pageUrl,
    'oidc.display_name': 'Acme SSO',
    'oidc.issuer_url': provider.issuer,
    'oidc.client_id': provider.clientId,
    'oidc.client_secret': provider.clientSecret,
    'oidc.callback_url': callbackUrl,
    'oidc.scopes': 'openid email profile groups',
    'oidc.role_mapping': JSON.stringify({ 'orbital-admins': 'global_admin' }),
    'oidc.team_mapping': JSON.stringify({
      devs: 'platform',
      leads: ['platform:team_admin', 'data'],
      web: 'web:team_user',
      ghosts: 'no-such-team',
    }),
    'oidc.enabled': 'true',
  });
});

afterAll(async () => {
  await provider?.stop();
  await stack?.stop();
});

describe('single sign-on with an OpenID provider', () => {
  it('is offered under its display name', async () => {
    const methods = (await app.inject({ method: 'GET', url: '/api/auth/methods' })).json().data;
    expect(methods.oidc).toEqual({ name: 'Acme SSO', start_url: '/api/auth/oidc/start' });
  });

  it('asks the provider for a code with PKCE, state and nonce', async () => {
    const { authorizeUrl } = await startSignIn(app, 'oidc');
    expect(Object.fromEntries(authorizeUrl.searchParams)).toMatchObject({
      client_id: provider.clientId,
      redirect_uri: callbackUrl,
      response_type: 'code',
      scope: 'openid email profile groups',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
  });

  it('creates the user at the first sign-in with the role and teams its groups give', async () => {
    person('ada', { email: 'ada@acme.test', groups: ['leads', 'orbital-admins', 'ghosts'] });
    const { response } = await signIn('ada', '/installations');
    const { location, token } = expectSignedIn(response);
    expect(location).toBe(`${pageUrl}/installations`);
    const view = await me(token);
    expect(view).toMatchObject({ email: 'ada@acme.test', name: 'Person ada', global_role: 'global_admin' });
    expect(view.memberships.map((m: { team_slug: string; role: string }) => [m.team_slug, m.role])).toEqual([
      ['data', 'team_user'],
      ['platform', 'team_admin'],
    ]);
    expect(stack.logs.text()).toContain('auth.sso_unknown_teams');
  });

  it('applies the mapping again at every sign-in, and the change reaches sessions already open', async () => {
    person('bob', { email: 'bob@acme.test', groups: ['devs', 'web'] });
    const first = expectSignedIn((await signIn('bob')).response);
    expect((await me(first.token)).memberships).toHaveLength(2);
    // Someone gave bob a membership in Orbital itself, in a team the mapping does not name: it stays.
    const other = await admin('POST', '/api/teams', { slug: 'unmapped', name: 'unmapped' });
    const bobId = (await me(first.token)).id;
    await admin('POST', `/api/teams/${other.json().data.id}/members`, { user_id: bobId, role: 'team_user' });
    // Bob left "web" and was made a lead at the provider.
    person('bob', { email: 'bob@acme.test', groups: ['leads'] });
    const second = expectSignedIn((await signIn('bob')).response);
    const expected = [
      ['data', 'team_user'],
      ['platform', 'team_admin'],
      ['unmapped', 'team_user'],
    ];
    const roles = (view: { memberships: Array<{ team_slug: string; role: string }> }) =>
      view.memberships.map((m) => [m.team_slug, m.role]);
    expect(roles(await me(second.token))).toEqual(expected);
    // The first session was evicted from every replica's cache: it sees the change at once.
    expect(roles(await me(first.token))).toEqual(expected);
    expect((await me(first.token)).global_role).toBe('global_user');
  });

  it('links an existing user by a verified address and takes the mapped role from then on', async () => {
    const created = await admin('POST', '/api/users', {
      email: 'carol@acme.test',
      name: 'Carol',
      password: 'seven quiet lanterns by the river',
    });
    person('carol-at-idp', { email: 'Carol@acme.test', groups: ['orbital-admins'] });
    const { token } = expectSignedIn((await signIn('carol-at-idp')).response);
    expect(await me(token)).toMatchObject({ id: created.json().data.id, global_role: 'global_admin' });
  });

  it('refuses an address the provider has not verified, and one outside the allowed domains', async () => {
    person('eve', { email: 'ada@acme.test', email_verified: false });
    expectFailure((await signIn('eve')).response, 403, 'email_not_verified');
    await configure(admin, { 'oidc.allowed_email_domains': 'corp.test, Acme.test' });
    try {
      person('mallory', { email: 'mallory@elsewhere.test' });
      expectFailure((await signIn('mallory')).response, 403, 'email_domain_not_allowed');
      person('dan', { email: 'dan@acme.test' });
      expectSignedIn((await signIn('dan')).response);
    } finally {
      await configure(admin, { 'oidc.allowed_email_domains': '' });
    }
  });

  it('refuses a replayed callback and a replayed code', async () => {
    person('frank', { email: 'frank@acme.test' });
    const first = await signIn('frank');
    expectSignedIn(first.response);
    await expectReplaysRefused(app, 'oidc', first);
  });

  it('refuses a callback whose state was never issued, or was issued to another browser', async () => {
    person('ruth', { email: 'ruth@acme.test' });
    provider.signInAs('ruth');
    const started = await startSignIn(app, 'oidc');
    const answer = await provider.authorize(started.authorizeUrl.href);
    const forged = new URL(answer);
    forged.searchParams.set('state', 'a-state-nobody-issued');
    expectFailure(await callBack(app, forged, started.binding), 400, 'invalid_state');
    const elsewhere = await startSignIn(app, 'oidc');
    expectFailure(await callBack(app, answer, elsewhere.binding), 400, 'state_mismatch');
  });

  it.each([
    ['a tampered signature', 'signature'],
    ['a nonce of another sign-in', 'nonce'],
  ] as const)('refuses an ID token with %s', async (_label, how) => {
    person(`tamper-${how}`, { email: `tamper-${how}@acme.test` });
    provider.tamperIdTokens(how);
    try {
      const { response } = await signIn(`tamper-${how}`);
      expectFailure(response, 401, 'token_invalid');
    } finally {
      provider.tamperIdTokens(null);
    }
    const users = await admin('GET', `/api/users?q=tamper-${how}`);
    expect(users.json().data.items).toEqual([]);
  });

  it('answers 503 with a clear page while the provider is down', async () => {
    person('grace', { email: 'grace@acme.test' });
    provider.signInAs('grace');
    const started = await startSignIn(app, 'oidc');
    const answer = await provider.authorize(started.authorizeUrl.href);
    await provider.pause();
    try {
      expectFailure(await callBack(app, answer, started.binding), 503, 'provider_unavailable');
    } finally {
      await provider.resume();
    }
    // An issuer that cannot be discovered at all: refused at the start, before the browser leaves.
    await configure(admin, { 'oidc.issuer_url': 'http://127.0.0.1:9/' });
    try {
      expectFailure(await app.inject({ method: 'GET', url: '/api/auth/oidc/start' }), 503, 'provider_unavailable');
    } finally {
      await configure(admin, { 'oidc.issuer_url': provider.issuer });
    }
  });

  it('refuses a broken mapping at its field, and is not offered while a setting it needs is empty', async () => {
    const refused = await admin('PUT', '/api/settings/oidc.team_mapping', { value: '{"devs": "Not A Slug"}' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.details).toEqual([
      expect.objectContaining({
        path: 'body.value',
        message: expect.stringContaining('at devs.0: must be "<team slug>'),
      }),
    ]);
    const notJson = await admin('PUT', '/api/settings/oidc.role_mapping', { value: '{orbital-admins: admin}' });
    expect(notJson.statusCode).toBe(400);
    await configure(admin, { 'oidc.client_id': '' });
    try {
      const methods = (await app.inject({ method: 'GET', url: '/api/auth/methods' })).json().data;
      expect(methods.oidc).toBeNull();
      const response = await app.inject({ method: 'GET', url: '/api/auth/oidc/start' });
      expectFailure(response, 503, 'misconfigured');
      expect(response.body).toContain('oidc.client_id');
    } finally {
      await configure(admin, { 'oidc.client_id': provider.clientId });
    }
  });

  it('records sign-ins, refusals, new and linked accounts and mapped changes in the audit log', async () => {
    const wanted = ['auth.sso_login', 'user.created', 'auth.account_linked', 'user.updated', 'team.member_added'];
    const entries = async () =>
      (await admin('GET', '/api/audit?limit=500')).json().data.entries as Array<{
        action: string;
        outcome: string;
        reason: string | null;
        details: Record<string, unknown>;
      }>;
    // Each entry reaches the log after its own commit: wait for the refusal as well as the actions.
    const missing = async () => {
      const all = await entries();
      const seen = new Set(all.map((e) => e.action));
      const refused = all.some((e) => e.outcome === 'failure' && e.reason === 'email_domain_not_allowed');
      return [...wanted.filter((action) => !seen.has(action)), ...(refused ? [] : ['the refused domain'])];
    };
    await expect.poll(missing, { timeout: 20_000 }).toEqual([]);
    const all = await entries();
    expect(all).toContainEqual(
      expect.objectContaining({ action: 'auth.sso_login', outcome: 'failure', reason: 'email_domain_not_allowed' }),
    );
    expect(all).toContainEqual(
      expect.objectContaining({
        action: 'auth.sso_login',
        outcome: 'success',
        details: expect.objectContaining({ how: 'created' }),
      }),
    );
    expect(JSON.stringify(all)).not.toContain(provider.clientSecret);
  });

  it('never writes the client secret, a code or a token to the log', async () => {
    const { answer } = await signIn('frank');
    const logs = stack.logs.text();
    expect(logs).not.toContain(provider.clientSecret);
    expect(logs).not.toContain(answer.searchParams.get('code'));
  });
});
