import type { AuditEntry } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { auditEntriesOnceThere } from './auditEntriesOnceThere.ts';
import { adminCredentials, bearer, login, loginAdmin, type Session } from './identityStack.ts';
import { approve, pkcePair, postForm, redirectUri, registerClient } from './oauthFlow.ts';
import { useIdentityStack } from './useIdentityStack.ts';

const identity = useIdentityStack({
  loginRateLimits: {
    accountAtAddress: { maxAttempts: 3, windowSeconds: 60 },
    account: { maxAttempts: 100, windowSeconds: 60 },
    address: { maxAttempts: 1000, windowSeconds: 60 },
  },
});
const app = () => identity.replica();
const started = new Date().toISOString();

async function entries(query: Record<string, string>): Promise<AuditEntry[]> {
  const search = new URLSearchParams({ from: started, limit: '500', ...query });
  const response = await app().inject({ method: 'GET', url: `/api/audit?${search}`, headers: bearer(identity.admin) });
  if (response.statusCode !== 200) throw new Error(`GET /api/audit: ${response.statusCode} ${response.body}`);
  return response.json().data.entries;
}

const waitForEntries = (query: Record<string, string>, count = 1) =>
  auditEntriesOnceThere(() => entries(query), count, JSON.stringify(query));

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, session: Session, payload?: object) =>
  app().inject({ method, url, headers: bearer(session), ...(payload ? { payload } : {}) });

/** A new team (its slug made unique) with the first admin among its team admins. */
async function teamLedByAdmin(slug: string, name: string): Promise<string> {
  const made = await call('POST', '/api/teams', identity.admin, { slug: `${slug}-${Date.now()}`, name });
  const team = made.json().data.id as string;
  await call('POST', `/api/teams/${team}/members`, identity.admin, {
    user_id: identity.admin.userId,
    role: 'team_admin',
  });
  return team;
}

describe('sign-in', () => {
  it('records a login with who, how and from where, and a logout', async () => {
    const session = await login(app(), adminCredentials.email, adminCredentials.password);
    const [entry] = (await waitForEntries({ action: 'auth.login', outcome: 'success' }, 2)).filter(
      (e) => e.details.session_id !== undefined && e.request_id !== null,
    );
    expect(entry).toMatchObject({
      source: 'gateway-api',
      actor: { kind: 'user', email: adminCredentials.email, name: adminCredentials.name },
      target: { kind: 'user' },
      team_id: null,
      outcome: 'success',
      details: { method: 'password' },
    });
    expect(entry?.source_ip).toBeTruthy();
    expect((await call('POST', '/api/auth/logout', session)).statusCode).toBe(200);
    const [logout] = await waitForEntries({ action: 'auth.logout' });
    expect(logout).toMatchObject({ actor: { kind: 'user', id: session.userId }, target: { id: session.userId } });
  });

  it('records refused logins once each, and a rate-limited run of them once', async () => {
    const attempt = (email: string, password: string) =>
      app().inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
    expect((await attempt('nobody@orbital.test', 'some password or other')).statusCode).toBe(401);
    const [unknown] = await waitForEntries({ action: 'auth.login', outcome: 'failure', actor: 'nobody@orbital.test' });
    expect(unknown).toMatchObject({
      actor: { kind: 'anonymous', id: null, email: 'nobody@orbital.test' },
      reason: 'unknown_account',
    });

    const victim = `victim-${Date.now()}@orbital.test`;
    await call('POST', '/api/users', identity.admin, {
      email: victim,
      name: 'Victim',
      password: 'a long enough pass phrase 1',
    });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await attempt(victim, 'wrong guess number one')).statusCode);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
    const refused = await waitForEntries({ action: 'auth.login', actor: victim }, 4);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const settled = await entries({ action: 'auth.login', actor: victim });
    expect(settled.map((e) => e.reason).sort()).toEqual([
      'rate_limited_account_at_address',
      'wrong_password',
      'wrong_password',
      'wrong_password',
    ]);
    expect(refused.find((e) => e.reason === 'wrong_password')?.actor).toMatchObject({ kind: 'user', email: victim });
  });
});

describe('people and teams', () => {
  it('records a user created and their sessions revoked', async () => {
    const email = `person-${Date.now()}@orbital.test`;
    const made = await call('POST', '/api/users', identity.admin, {
      email,
      name: 'Person',
      password: 'a long enough pass phrase 2',
    });
    expect(made.statusCode).toBe(201);
    const id = made.json().data.id as string;
    await login(app(), email, 'a long enough pass phrase 2');
    expect((await call('DELETE', `/api/users/${id}/sessions`, identity.admin)).statusCode).toBe(200);
    const [created] = await waitForEntries({ action: 'user.created', target_id: id });
    expect(created).toMatchObject({
      actor: { kind: 'user', id: identity.admin.userId, email: adminCredentials.email },
      details: { email, name: 'Person', global_role: 'global_user' },
    });
    expect(JSON.stringify(created)).not.toContain('pass phrase');
    const [revoked] = await waitForEntries({ action: 'session.revoked', target_id: id });
    expect(revoked?.details).toMatchObject({ revoked: 1 });
  });

  it("records a team's life and its memberships under the team, for its admins to read", async () => {
    const team = (
      await call('POST', '/api/teams', identity.admin, { slug: `audited-${Date.now()}`, name: 'Audited' })
    ).json().data as { id: string; slug: string };
    // The same slug again is refused: nothing was done, so nothing is recorded.
    expect((await call('POST', '/api/teams', identity.admin, { slug: team.slug, name: 'Twice' })).statusCode).toBe(409);
    await call('PUT', `/api/teams/${team.id}`, identity.admin, { name: 'Audited team' });
    const email = `member-${Date.now()}@orbital.test`;
    const password = 'a long enough pass phrase 3';
    const member = (await call('POST', '/api/users', identity.admin, { email, name: 'Member', password })).json().data
      .id;
    expect(
      (await call('POST', `/api/teams/${team.id}/members`, identity.admin, { user_id: member, role: 'team_user' }))
        .statusCode,
    ).toBe(201);
    expect(
      (await call('POST', `/api/teams/${team.id}/members`, identity.admin, { user_id: member, role: 'team_user' }))
        .statusCode,
    ).toBe(409);
    await call('PUT', `/api/teams/${team.id}/members/${member}`, identity.admin, { role: 'team_admin' });

    const found = await waitForEntries({ team_id: team.id }, 5);
    const actions = found.map((e) => e.action).reverse();
    // The team and its creator's membership (its first team admin) are one transaction: either order.
    expect(actions.slice(0, 2).sort()).toEqual(['team.created', 'team.member_added']);
    expect(actions.slice(2)).toEqual(['team.updated', 'team.member_added', 'team.member_role_changed']);
    expect(found.find((e) => e.action === 'team.updated')?.details).toMatchObject({
      name: 'Audited team',
      previous: { name: 'Audited' },
    });
    expect(found.find((e) => e.action === 'team.member_role_changed')?.details).toMatchObject({
      email,
      role: 'team_admin',
      previous_role: 'team_user',
    });

    // The new team admin reads the team's entries, and only the team's.
    const teamAdmin = await login(app(), email, password);
    const own = await call('GET', `/api/teams/${team.id}/audit`, teamAdmin);
    expect(own.statusCode).toBe(200);
    expect(own.json().data.entries.every((e: AuditEntry) => e.team_id === team.id)).toBe(true);
    expect((await call('GET', '/api/audit', teamAdmin)).statusCode).toBe(403);

    await call('DELETE', `/api/teams/${team.id}/members/${member}`, identity.admin);
    await call('DELETE', `/api/teams/${team.id}`, identity.admin);
    const all = await waitForEntries({ team_id: team.id }, 7);
    expect(all.slice(0, 2).map((e) => e.action)).toEqual(['team.deleted', 'team.member_removed']);
    expect(all.filter((e) => e.action === 'team.created')).toHaveLength(1);
    // The creator's membership and the member's, each once (the refused second add recorded nothing).
    expect(all.filter((e) => e.action === 'team.member_added')).toHaveLength(2);
  });
});

describe('tokens and OAuth', () => {
  it('records a personal access token by its id and name, never the token, and its revocation', async () => {
    const team = await teamLedByAdmin('tokens', 'Tokens');
    const fresh = await loginAdmin(app());
    const made = await call('POST', '/api/users/me/access-tokens', fresh, { team_id: team, name: 'ci' });
    expect(made.statusCode).toBe(201);
    const { id, token } = made.json().data as { id: string; token: string };
    expect((await call('DELETE', `/api/teams/${team}/access-tokens/${id}`, fresh)).statusCode).toBe(200);
    const found = await waitForEntries({ target_id: id }, 2);
    expect(found.map((e) => e.action)).toEqual(['access_token.revoked', 'personal_token.created']);
    expect(found[1]).toMatchObject({ team_id: team, details: { name: 'ci' } });
    expect(found[0]?.details).toMatchObject({ kind: 'personal', name: 'ci' });
    const everything = await entries({});
    expect(JSON.stringify(everything)).not.toContain(token);
  });

  it("records a client's registration, a consent granted and one refused, and the client's own revocation", async () => {
    const client = await registerClient(app(), { client_name: 'Audited client' });
    const [registered] = await waitForEntries({ action: 'oauth.client_registered', target_id: client.client_id });
    expect(registered).toMatchObject({
      actor: { kind: 'anonymous' },
      details: { client_name: 'Audited client', redirect_uris: [redirectUri], auth_method: 'none' },
    });

    const team = await teamLedByAdmin('oauth', 'OAuth');
    const session = await loginAdmin(app());
    const pkce = pkcePair();
    const granted = await approve(app(), session, {
      clientId: client.client_id,
      teamId: team,
      challenge: pkce.challenge,
    });
    await approve(app(), session, {
      clientId: client.client_id,
      teamId: team,
      challenge: pkce.challenge,
      decision: 'deny',
    });
    const consents = await waitForEntries({ target_id: client.client_id, action: 'oauth.*' }, 3);
    expect(consents.map((e) => e.action).sort()).toEqual([
      'oauth.client_registered',
      'oauth.consent_denied',
      'oauth.consent_granted',
    ]);
    expect(consents.find((e) => e.action === 'oauth.consent_granted')).toMatchObject({
      team_id: team,
      actor: { kind: 'user', id: identity.admin.userId },
    });

    const code = granted.searchParams.get('code') ?? '';
    const tokens = await postForm(app(), '/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      code_verifier: pkce.verifier,
    });
    expect(tokens.statusCode).toBe(200);
    const accessToken = tokens.json().access_token as string;
    await postForm(app(), '/revoke', { token: accessToken, client_id: client.client_id });
    const [revoked] = await waitForEntries({ action: 'oauth.token_revoked', actor: client.client_id });
    expect(revoked).toMatchObject({
      actor: { kind: 'client', name: 'Audited client' },
      target: { kind: 'oauth_grant' },
    });
    expect(JSON.stringify(await entries({}))).not.toContain(accessToken);
    expect(JSON.stringify(await entries({}))).not.toContain(code);
  });
});
