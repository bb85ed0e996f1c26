import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type IdentityStack, login, loginAdmin, type Session, startIdentityStack } from './identityStack.ts';
import {
  approve,
  consentPage,
  exchangeCode,
  introspect as introspectAs,
  pkcePair,
  postForm,
  redirectUri,
  registerClient,
  registerTestSatellite,
  sendHeartbeat,
  type TestSatellite,
} from './oauthFlow.ts';

let stack: IdentityStack;
let app: FastifyInstance;
let clock = Date.now();
let teamA: string;
let teamB: string;
const users: Record<'admin' | 'alice' | 'bob' | 'dave' | 'ann', Session> = {} as never;
const resource = 'https://satellite.test/mcp';
/** The resource servers: an active global satellite, and one of team A. */
let globalSatellite: TestSatellite;
let teamASatellite: TestSatellite;
const introspect = (on: FastifyInstance, token: string) => introspectAs(on, token, globalSatellite.apiKey);

async function asAdmin(method: 'POST' | 'GET' | 'DELETE', url: string, payload?: Record<string, unknown>) {
  const response = await app.inject({ method, url, headers: bearer(users.admin), ...(payload ? { payload } : {}) });
  if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json().data;
}

beforeAll(async () => {
  stack = await startIdentityStack({ now: () => clock });
  app = stack.app;
  users.admin = await loginAdmin(app);
  teamA = (await asAdmin('POST', '/api/teams', { slug: 'team-a', name: 'Team <A>' })).id;
  teamB = (await asAdmin('POST', '/api/teams', { slug: 'team-b', name: 'Team B' })).id;
  const memberships: Record<string, Array<[string, string]>> = {
    alice: [
      [teamA, 'team_user'],
      [teamB, 'team_user'],
    ],
    bob: [[teamB, 'team_user']],
    dave: [],
    ann: [[teamA, 'team_admin']],
  };
  for (const [name, teams] of Object.entries(memberships)) {
    const credentials = { email: `${name}@orbital.test`, password: `long pass phrase ${name.length * 7} of the tests` };
    const user = await asAdmin('POST', '/api/users', { ...credentials, name });
    for (const [teamId, role] of teams)
      await asAdmin('POST', `/api/teams/${teamId}/members`, { user_id: user.id, role });
    users[name as keyof typeof users] = await login(app, credentials.email, credentials.password);
  }
  globalSatellite = await registerTestSatellite(app, users.admin);
  teamASatellite = await registerTestSatellite(app, users.admin, { teamId: teamA });
});

afterAll(async () => {
  await stack?.stop();
});

/** A full authorization for alice in team A: the client, its verifier and the token response. */
async function authorizeAlice(options: { teamId?: string; clientMetadata?: Record<string, unknown> } = {}) {
  const client = await registerClient(app, options.clientMetadata);
  const pkce = pkcePair();
  const location = await approve(app, users.alice, {
    clientId: client.client_id,
    teamId: options.teamId ?? teamA,
    challenge: pkce.challenge,
    resource,
  });
  const code = location.searchParams.get('code') as string;
  const response = await exchangeCode(app, {
    clientId: client.client_id,
    code,
    verifier: pkce.verifier,
    resource,
    ...(client.client_secret ? { secret: client.client_secret } : {}),
  });
  return { client, pkce, code, location, response, tokens: response.json() };
}

describe('authorization server metadata', () => {
  it('names the endpoints at the issuer, S256 only', async () => {
    const response = await app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(response.json()).toMatchObject({
      issuer: 'http://localhost:3000',
      authorization_endpoint: 'http://localhost:3000/authorize',
      token_endpoint: 'http://localhost:3000/token',
      registration_endpoint: 'http://localhost:3000/register',
      introspection_endpoint: 'http://localhost:3000/introspect',
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      scopes_supported: ['mcp'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
  });
});

describe('client registration', () => {
  it('registers a public client without a secret and a confidential one with a secret stored hashed', async () => {
    const open = await registerClient(app);
    expect(open.client_id).toMatch(/^orb_client_/);
    expect(open.client_secret).toBeUndefined();
    const confidential = await registerClient(app, { token_endpoint_auth_method: 'client_secret_post' });
    expect(confidential.client_secret).toMatch(/^orb_cs_/);
    const db = new pg.Client({ ...stack.env.postgres });
    await db.connect();
    const rows = await db.query('SELECT client_secret_hash FROM identity.oauth_clients WHERE client_id = $1', [
      confidential.client_id,
    ]);
    await db.end();
    const expected = createHash('sha256')
      .update(confidential.client_secret as string)
      .digest();
    expect(rows.rows[0].client_secret_hash.equals(expected)).toBe(true);
  });

  it.each([
    ['no redirect URI', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['a plain-http redirect URI on another host', { redirect_uris: ['http://evil.test/cb'] }, 'invalid_redirect_uri'],
    ['a javascript: redirect URI', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_client_metadata'],
    ['a file: redirect URI', { redirect_uris: ['file:///etc/passwd'] }, 'invalid_redirect_uri'],
    ['a redirect URI with a fragment', { redirect_uris: ['https://app.test/cb#x'] }, 'invalid_redirect_uri'],
    ['an unsupported auth method', { token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
    ['the implicit grant', { grant_types: ['implicit'] }, 'invalid_client_metadata'],
    ['a token response type', { response_types: ['token'] }, 'invalid_client_metadata'],
    ['no body', null, 'invalid_client_metadata'],
    // Each application type under its own redirect rules.
    [
      'a native application with an https redirect',
      { application_type: 'native', redirect_uris: ['https://app.test/cb'] },
      'invalid_redirect_uri',
    ],
    [
      'a native application with plain http elsewhere',
      { application_type: 'native', redirect_uris: ['http://app.test/cb'] },
      'invalid_redirect_uri',
    ],
    [
      'a web application with a loopback redirect',
      { application_type: 'web', redirect_uris: [redirectUri] },
      'invalid_redirect_uri',
    ],
    [
      'a web application with a private-use scheme',
      { application_type: 'web', redirect_uris: ['cursor://cb'] },
      'invalid_redirect_uri',
    ],
    ['an application type it does not know', { application_type: 'desktop' }, 'invalid_client_metadata'],
  ])('refuses %s', async (_name, metadata, error) => {
    const payload = metadata === null ? {} : { redirect_uris: [redirectUri], ...metadata };
    const response = await app.inject({ method: 'POST', url: '/register', payload });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error });
  });

  it.each([
    ['native', [redirectUri, 'cursor://anysphere.cursor-retrieval/cb']],
    ['web', ['https://app.test/cb']],
  ])('registers a %s application under its own rules, and echoes the type', async (type, redirectUris) => {
    const response = await app.inject({
      method: 'POST',
      url: '/register',
      payload: { application_type: type, redirect_uris: redirectUris },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ application_type: type });
  });

  it('accepts https, loopback http on any path and a native app scheme', async () => {
    const client = await registerClient(app, {
      redirect_uris: ['https://app.test/cb', 'http://localhost/cb', 'cursor://anysphere.cursor-retrieval/oauth/cb'],
    });
    expect(client.client_id).toBeTruthy();
  });
});

describe('the authorization endpoint', () => {
  it('shows the consent page with the user teams, escaping what the client registered', async () => {
    const client = await registerClient(app, { client_name: '<script>alert(1)</script>' });
    const response = await consentPage(app, client.client_id, {
      session: users.alice,
      query: { redirect_uri: redirectUri, state: 's1' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.body).not.toContain('<script>');
    expect(response.body).toContain('&lt;script&gt;');
    expect(response.body).toContain('Team &lt;A&gt;');
    expect(response.body).toContain(`value="${teamB}"`);
  });

  it('needs a logged-in user', async () => {
    const client = await registerClient(app);
    const response = await consentPage(app, client.client_id);
    expect(response.statusCode).toBe(401);
  });

  it('shows, never redirects, an unknown client or an unregistered redirect URI', async () => {
    const client = await registerClient(app);
    const unknown = await consentPage(app, 'orb_client_nope', { session: users.alice });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ error: 'invalid_client' });
    const elsewhere = await consentPage(app, client.client_id, {
      session: users.alice,
      query: { redirect_uri: 'https://evil.test/cb' },
    });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json()).toMatchObject({ error: 'invalid_request' });
    expect(elsewhere.headers.location).toBeUndefined();
  });

  it.each([
    ['no PKCE challenge', 'response_type=code', 'invalid_request'],
    [
      'the plain PKCE method',
      `response_type=code&code_challenge_method=plain&code_challenge=${'a'.repeat(43)}`,
      'invalid_request',
    ],
    [
      'another response type',
      `response_type=token&code_challenge_method=S256&code_challenge=${'a'.repeat(43)}`,
      'unsupported_response_type',
    ],
    [
      'an unknown scope',
      `response_type=code&code_challenge_method=S256&code_challenge=${'a'.repeat(43)}&scope=admin`,
      'invalid_scope',
    ],
  ])('sends %s back to the client as an error', async (_name, query, error) => {
    const client = await registerClient(app);
    const response = await app.inject({
      method: 'GET',
      url: `/authorize?client_id=${client.client_id}&${query}&state=s2`,
      cookies: { session: users.alice.cookie },
    });
    expect(response.statusCode).toBe(302);
    const location = new URL(response.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('state')).toBe('s2');
    // RFC 9207: error responses name the issuer too, so a client can tell which server sent them.
    expect(location.searchParams.getAll('iss')).toEqual(['http://localhost:3000']);
  });

  it('refuses a user without a team, a team the user is not in, and a denial', async () => {
    const client = await registerClient(app);
    const { challenge } = pkcePair();
    const lonely = await consentPage(app, client.client_id, { session: users.dave, challenge });
    expect(new URL(lonely.headers.location as string).searchParams.get('error')).toBe('access_denied');
    const wrongTeam = await approve(app, users.bob, { clientId: client.client_id, teamId: teamA, challenge });
    expect(wrongTeam.searchParams.get('error')).toBe('access_denied');
    expect(wrongTeam.searchParams.get('code')).toBeNull();
    const denied = await approve(app, users.alice, {
      clientId: client.client_id,
      teamId: teamA,
      challenge,
      decision: 'deny',
    });
    expect(denied.searchParams.get('error')).toBe('access_denied');
    const noTeam = await postForm(
      app,
      '/authorize',
      {
        client_id: client.client_id,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        decision: 'approve',
      },
      { cookie: `session=${users.alice.cookie}` },
    );
    expect(new URL(noTeam.headers.location as string).searchParams.get('error')).toBe('invalid_request');
  });
});

describe('the token endpoint', () => {
  it('exchanges a code with its verifier for tokens of the chosen team', async () => {
    const { response, tokens, location } = await authorizeAlice();
    expect(location.searchParams.getAll('iss')).toEqual(['http://localhost:3000']);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp' });
    expect(tokens.access_token).toMatch(/^orb_at_/);
    expect(tokens.refresh_token).toMatch(/^orb_rt_/);
    expect(await introspect(app, tokens.access_token)).toMatchObject({
      active: true,
      sub: users.alice.userId,
      team_id: teamA,
      scope: 'mcp',
      aud: resource,
      token_kind: 'oauth',
      exp: Math.floor(clock / 1000) + 3600,
    });
  });

  it('authenticates a confidential client by its secret', async () => {
    const { response } = await authorizeAlice({ clientMetadata: { token_endpoint_auth_method: 'client_secret_post' } });
    expect(response.statusCode).toBe(200);
    const client = await registerClient(app, { token_endpoint_auth_method: 'client_secret_basic' });
    const pkce = pkcePair();
    const location = await approve(app, users.alice, {
      clientId: client.client_id,
      teamId: teamA,
      challenge: pkce.challenge,
    });
    const wrong = await exchangeCode(app, {
      clientId: client.client_id,
      code: location.searchParams.get('code') as string,
      verifier: pkce.verifier,
      secret: 'orb_cs_wrongwrongwrongwrongwrongwrongwrongwrongwro',
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses an unknown client', async () => {
    const response = await exchangeCode(app, {
      clientId: 'orb_client_nope',
      code: 'orb_ac_x',
      verifier: 'v'.repeat(43),
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses a wrong verifier, a wrong redirect URI, another client and an unsupported grant', async () => {
    const client = await registerClient(app);
    const other = await registerClient(app);
    const pkce = pkcePair();
    const code = async () =>
      (
        await approve(app, users.alice, { clientId: client.client_id, teamId: teamA, challenge: pkce.challenge })
      ).searchParams.get('code') as string;
    const badVerifier = await exchangeCode(app, {
      clientId: client.client_id,
      code: await code(),
      verifier: pkcePair().verifier,
    });
    expect(badVerifier.json()).toMatchObject({ error: 'invalid_grant' });
    const badRedirect = await exchangeCode(app, {
      clientId: client.client_id,
      code: await code(),
      verifier: pkce.verifier,
      redirect: 'http://127.0.0.1:7777/other',
    });
    expect(badRedirect.json()).toMatchObject({ error: 'invalid_grant' });
    const otherClient = await exchangeCode(app, {
      clientId: other.client_id,
      code: await code(),
      verifier: pkce.verifier,
    });
    expect(otherClient.json()).toMatchObject({ error: 'invalid_grant' });
    const shortVerifier = await exchangeCode(app, {
      clientId: client.client_id,
      code: await code(),
      verifier: 'short',
    });
    expect(shortVerifier.json()).toMatchObject({ error: 'invalid_request' });
    const grant = await postForm(app, '/token', { grant_type: 'client_credentials', client_id: client.client_id });
    expect(grant.statusCode).toBe(400);
    expect(grant.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('refuses an expired code', async () => {
    const client = await registerClient(app);
    const pkce = pkcePair();
    const location = await approve(app, users.alice, {
      clientId: client.client_id,
      teamId: teamA,
      challenge: pkce.challenge,
    });
    clock += 61_000;
    const response = await exchangeCode(app, {
      clientId: client.client_id,
      code: location.searchParams.get('code') as string,
      verifier: pkce.verifier,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('expired'),
    });
  });

  it('refuses a code used twice and revokes what its first use issued', async () => {
    const { client, pkce, code, tokens } = await authorizeAlice();
    expect((await introspect(app, tokens.access_token)).active).toBe(true);
    const again = await exchangeCode(app, { clientId: client.client_id, code, verifier: pkce.verifier, resource });
    expect(again.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await introspect(app, tokens.access_token)).toEqual({ active: false });
  });

  it('refuses the code once the user has left the team', async () => {
    const carolCredentials = { email: 'carol@orbital.test', password: 'long pass phrase 99 of the tests' };
    const carol = await asAdmin('POST', '/api/users', { ...carolCredentials, name: 'carol' });
    await asAdmin('POST', `/api/teams/${teamA}/members`, { user_id: carol.id, role: 'team_user' });
    const session = await login(app, carolCredentials.email, carolCredentials.password);
    const client = await registerClient(app);
    const pkce = pkcePair();
    const location = await approve(app, session, {
      clientId: client.client_id,
      teamId: teamA,
      challenge: pkce.challenge,
    });
    await asAdmin('DELETE', `/api/teams/${teamA}/members/${carol.id}`);
    const response = await exchangeCode(app, {
      clientId: client.client_id,
      code: location.searchParams.get('code') as string,
      verifier: pkce.verifier,
    });
    expect(response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('rotates refresh tokens, and one reused after the grace period revokes the grant', async () => {
    const { client, tokens } = await authorizeAlice();
    const refresh = (token: string, clientId = client.client_id) =>
      postForm(app, '/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: token });
    const other = await registerClient(app);
    expect((await refresh(tokens.refresh_token, other.client_id)).json()).toMatchObject({ error: 'invalid_grant' });
    const rotated = await refresh(tokens.refresh_token);
    expect(rotated.statusCode).toBe(200);
    const next = rotated.json();
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect((await introspect(app, next.access_token)).active).toBe(true);
    // At once: the client racing itself (two requests refreshing together) fails without harm.
    const raced = await refresh(tokens.refresh_token);
    expect(raced.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await introspect(app, next.access_token)).active).toBe(true);
    // Later: a leaked token is being replayed, and the grant ends.
    clock += 31_000;
    const reused = await refresh(tokens.refresh_token);
    expect(reused.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await introspect(app, next.access_token)).toEqual({ active: false });
    expect((await refresh(next.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('revokes a grant through RFC 7009 revocation by its client only', async () => {
    const { client, tokens } = await authorizeAlice();
    const other = await registerClient(app);
    expect(
      (await postForm(app, '/revoke', { client_id: other.client_id, token: tokens.access_token })).statusCode,
    ).toBe(200);
    expect((await introspect(app, tokens.access_token)).active).toBe(true);
    expect(
      (await postForm(app, '/revoke', { client_id: client.client_id, token: tokens.refresh_token })).statusCode,
    ).toBe(200);
    expect(await introspect(app, tokens.access_token)).toEqual({ active: false });
  });
});

describe('introspection', () => {
  const asSatellite = (apiKey: string, body: Record<string, string>) =>
    postForm(app, '/introspect', body, { authorization: `Bearer ${apiKey}` });

  it("needs an active satellite's API key: none, a bad one, or a user's session is 401", async () => {
    const { tokens } = await authorizeAlice();
    const none = await postForm(app, '/introspect', { token: tokens.access_token });
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="introspection"');
    expect(none.json()).toMatchObject({ error: 'invalid_client' });
    expect((await asSatellite('not an api key at all', { token: tokens.access_token })).statusCode).toBe(401);
    // The right key id with a wrong secret: Argon2 says no.
    const [keyId] = globalSatellite.apiKey.split('.');
    expect((await asSatellite(`${keyId}.${'x'.repeat(43)}`, { token: tokens.access_token })).statusCode).toBe(401);
    const userSession = await postForm(app, '/introspect', { token: tokens.access_token }, bearer(users.alice));
    expect(userSession.statusCode).toBe(401);
    const missing = await asSatellite(globalSatellite.apiKey, {});
    expect(missing.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses a satellite until its first heartbeat, then answers it', async () => {
    const { tokens } = await authorizeAlice({ teamId: teamA });
    const fresh = await registerTestSatellite(app, users.admin, { activate: false });
    const early = await asSatellite(fresh.apiKey, { token: tokens.access_token });
    expect(early.statusCode).toBe(403);
    expect(early.body).not.toContain(tokens.access_token);
    const heartbeat = await sendHeartbeat(app, fresh);
    expect(heartbeat.statusCode).toBe(200);
    const later = await asSatellite(fresh.apiKey, { token: tokens.access_token });
    expect(later.statusCode).toBe(200);
    expect(later.json()).toMatchObject({ active: true, team_id: teamA });
  });

  it('refuses a revoked satellite at once, though its key was verified and cached', async () => {
    const { tokens } = await authorizeAlice({ teamId: teamA });
    const doomed = await registerTestSatellite(app, users.admin);
    expect((await introspectAs(app, tokens.access_token, doomed.apiKey)).active).toBe(true);
    const revoked = await app.inject({
      method: 'DELETE',
      url: `/api/satellites/${doomed.id}`,
      headers: bearer(users.admin),
    });
    expect(revoked.statusCode).toBe(200);
    // The registry's broadcast reaches the gateway's subscription asynchronously.
    await expect
      .poll(async () => (await asSatellite(doomed.apiKey, { token: tokens.access_token })).statusCode)
      .toBe(401);
  });

  it("answers a team satellite about its team's tokens only", async () => {
    const inA = (await authorizeAlice({ teamId: teamA })).tokens.access_token;
    const inB = (await authorizeAlice({ teamId: teamB })).tokens.access_token;
    expect(await introspectAs(app, inA, teamASatellite.apiKey)).toMatchObject({ active: true, team_id: teamA });
    expect(await introspectAs(app, inB, teamASatellite.apiKey)).toEqual({ active: false });
    // A global satellite serves every team.
    expect((await introspect(app, inB)).team_id).toBe(teamB);
  });

  it('answers inactive for garbage, refresh tokens, expired tokens and users who left the team', async () => {
    const { tokens } = await authorizeAlice({ teamId: teamB });
    expect(await introspect(app, 'orb_at_garbage')).toEqual({ active: false });
    expect(await introspect(app, tokens.refresh_token)).toEqual({ active: false });
    expect((await introspect(app, tokens.access_token)).team_id).toBe(teamB);
    clock += 3601_000;
    expect(await introspect(app, tokens.access_token)).toEqual({ active: false });
  });
});

describe('personal access tokens', () => {
  const create = (session: Session, body: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: '/api/users/me/access-tokens', headers: bearer(session), payload: body });

  it('are made for one team of the user, shown once, stored hashed, and never logged', async () => {
    const response = await create(users.alice, { team_id: teamA, name: 'my editor', expires_in_days: 7 });
    expect(response.statusCode).toBe(201);
    const made = response.json().data;
    expect(made).toMatchObject({
      kind: 'personal',
      team_id: teamA,
      user_id: users.alice.userId,
      name: 'my editor',
      client_id: null,
    });
    expect(made.token).toMatch(/^orb_pat_/);
    expect(await introspect(app, made.token)).toMatchObject({
      active: true,
      team_id: teamA,
      client_id: 'personal_access_token',
      token_kind: 'personal',
    });
    const mine = (
      await app.inject({ method: 'GET', url: '/api/users/me/access-tokens', headers: bearer(users.alice) })
    ).json().data;
    expect(mine.map((t: { id: string }) => t.id)).toContain(made.id);
    expect(JSON.stringify(mine)).not.toContain(made.token);
    const db = new pg.Client({ ...stack.env.postgres });
    await db.connect();
    const dump = await db.query(
      "SELECT string_agg(t::text, ' ') AS all FROM (SELECT * FROM identity.oauth_tokens UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL) t",
    );
    const hashed = await db.query('SELECT count(*)::int AS n FROM identity.oauth_tokens WHERE token_hash = $1', [
      createHash('sha256').update(made.token).digest(),
    ]);
    await db.end();
    expect(dump.rows[0].all).not.toContain(made.token.slice(8));
    expect(hashed.rows[0].n).toBe(1);
    expect(stack.logs.text()).not.toContain(made.token.slice(8));
  });

  it('are refused for a team the user is not a member of, and past the maximum lifetime', async () => {
    expect((await create(users.bob, { team_id: teamA, name: 'x' })).statusCode).toBe(403);
    expect((await create(users.dave, { team_id: teamA, name: 'x' })).statusCode).toBe(403);
    expect((await create(users.alice, { team_id: teamA, name: 'x', expires_in_days: 366 })).statusCode).toBe(400);
    expect((await create(users.alice, { team_id: 'not-a-uuid', name: 'x' })).statusCode).toBe(400);
  });

  it('are revoked by their owner, not by another user', async () => {
    const made = (await create(users.alice, { team_id: teamB, name: 'to revoke' })).json().data;
    const byBob = await app.inject({
      method: 'DELETE',
      url: `/api/users/me/access-tokens/${made.id}`,
      headers: bearer(users.bob),
    });
    expect(byBob.statusCode).toBe(404);
    expect((await introspect(app, made.token)).active).toBe(true);
    const byAlice = await app.inject({
      method: 'DELETE',
      url: `/api/users/me/access-tokens/${made.id}`,
      headers: bearer(users.alice),
    });
    expect(byAlice.statusCode).toBe(200);
    expect(await introspect(app, made.token)).toEqual({ active: false });
    const again = await app.inject({
      method: 'DELETE',
      url: `/api/users/me/access-tokens/${made.id}`,
      headers: bearer(users.alice),
    });
    expect(again.statusCode).toBe(404);
  });

  it("are listed and revoked by the team's admin, for that team only", async () => {
    const inA = (await create(users.alice, { team_id: teamA, name: 'seen by ann' })).json().data;
    const inB = (await create(users.alice, { team_id: teamB, name: 'not seen by ann' })).json().data;
    const listed = (
      await app.inject({ method: 'GET', url: `/api/teams/${teamA}/access-tokens`, headers: bearer(users.ann) })
    ).json().data;
    const ids = listed.map((t: { id: string }) => t.id);
    expect(ids).toContain(inA.id);
    expect(ids).not.toContain(inB.id);
    expect(listed.find((t: { id: string }) => t.id === inA.id)).toMatchObject({ user_email: 'alice@orbital.test' });
    const crossTeam = await app.inject({
      method: 'DELETE',
      url: `/api/teams/${teamA}/access-tokens/${inB.id}`,
      headers: bearer(users.ann),
    });
    expect(crossTeam.statusCode).toBe(404);
    const revoked = await app.inject({
      method: 'DELETE',
      url: `/api/teams/${teamA}/access-tokens/${inA.id}`,
      headers: bearer(users.ann),
    });
    expect(revoked.statusCode).toBe(200);
    expect(await introspect(app, inA.token)).toEqual({ active: false });
    expect((await introspect(app, inB.token)).active).toBe(true);
  });
  // Last: the clock passes a day, which also ends the users' login sessions.
  it('expire', async () => {
    const made = (await create(users.alice, { team_id: teamA, name: 'short', expires_in_days: 1 })).json().data;
    expect((await introspect(app, made.token)).active).toBe(true);
    clock += 86_401_000;
    expect(await introspect(app, made.token)).toEqual({ active: false });
  });
});
