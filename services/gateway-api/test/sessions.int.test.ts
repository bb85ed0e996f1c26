import { type CallerIdentity, identityTeamGetSubject, serviceIdentity } from '@orbital/contracts';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCredentials, bearer, login, type Session } from './identityStack.ts';
import { useIdentityStack } from './useIdentityStack.ts';

/**
 * Sessions on two gateway replicas sharing NATS, PostgreSQL and Redis: login, logout, revocation and
 * membership changes take effect on the very next request, whichever replica serves it.
 */
const identity = useIdentityStack({
  gateways: 2,
  loginRateLimits: {
    accountAtAddress: { maxAttempts: 5, windowSeconds: 900 },
    account: { maxAttempts: 100, windowSeconds: 900 },
    address: { maxAttempts: 1000, windowSeconds: 900 },
  },
});
let a: FastifyInstance;
let b: FastifyInstance;
const secrets: string[] = [adminCredentials.password];

async function createUser(email: string, password: string) {
  secrets.push(password);
  const response = await asAdmin('POST', '/api/users', { email, name: email.split('@')[0], password });
  expect(response.statusCode).toBe(201);
  return response.json().data as { id: string };
}

async function loginOn(app: FastifyInstance, email: string, password: string) {
  const session = await login(app, email, password);
  secrets.push(session.token);
  return session;
}

/** The global admin's call on replica a, where these tests make their teams and memberships. */
const asAdmin = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload: Record<string, unknown>) =>
  a.inject({ method, url, headers: bearer(identity.admin), payload });

async function createTeam(slug: string, name: string): Promise<{ id: string }> {
  return (await asAdmin('POST', '/api/teams', { slug, name })).json().data;
}

const addMember = (teamId: string, member: Record<string, unknown>) =>
  asAdmin('POST', `/api/teams/${teamId}/members`, member);

const me = (app: FastifyInstance, session: Session) =>
  app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(session) });

beforeAll(() => {
  [a, b] = [identity.replica(0), identity.replica(1)];
  secrets.push(identity.admin.token);
});

describe('login', () => {
  it('sets an HttpOnly, Secure, SameSite=Strict session cookie and returns the same token for bearer use', async () => {
    await createUser('cookie@orbital.test', 'tall green pass phrase 123');
    const response = await a.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'COOKIE@orbital.test', password: 'tall green pass phrase 123' },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json().data;
    secrets.push(body.token);
    expect(body).toMatchObject({
      token_type: 'Bearer',
      user: { email: 'cookie@orbital.test', global_role: 'global_user' },
    });
    const cookie = response.cookies.find((c) => c.name === 'session');
    expect(cookie).toMatchObject({ value: body.token, httpOnly: true, secure: true, sameSite: 'Strict', path: '/' });
    // Cookie dates have whole seconds.
    expect(Math.abs(new Date(cookie?.expires ?? 0).getTime() - Date.parse(body.expires_at))).toBeLessThan(1000);
  });

  it('answers the same 401 for a wrong password and for an unknown account', async () => {
    const wrong = await a.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: adminCredentials.email, password: 'not the admin password' },
    });
    const unknown = await a.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'nobody@orbital.test', password: 'not the admin password' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.cookies).toEqual([]);
  });

  it.each([
    ['no body', undefined],
    ['no password', { email: 'a@orbital.test' }],
    ['an empty password', { email: 'a@orbital.test', password: '' }],
    ['an address that is not one', { email: 'not-an-address', password: 'whatever it is' }],
    ['an extra field', { email: 'a@orbital.test', password: 'whatever it is', remember: true }],
    ['a password of the wrong type', { email: 'a@orbital.test', password: 12345678901234 }],
  ])('answers 400 with the envelope for %s', async (_name, payload) => {
    const response = await a.inject({ method: 'POST', url: '/api/auth/login', ...(payload ? { payload } : {}) });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error: { code: 'validation_failed' } });
  });
});

describe('logout and revocation across replicas', () => {
  it('ends the session on both replicas from the next request, for the bearer token and the cookie', async () => {
    await createUser('leaver@orbital.test', 'tall green pass phrase 123');
    const session = await loginOn(a, 'leaver@orbital.test', 'tall green pass phrase 123');
    // Both replicas validate (and cache) the session first.
    expect((await me(a, session)).statusCode).toBe(200);
    expect((await me(b, session)).statusCode).toBe(200);

    const logout = await a.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(session) });
    expect(logout.statusCode).toBe(200);
    const cleared = logout.cookies.find((c) => c.name === 'session');
    expect(cleared?.value).toBe('');

    expect((await me(b, session)).statusCode).toBe(401);
    expect((await me(a, session)).statusCode).toBe(401);
    const byCookie = await b.inject({ method: 'GET', url: '/api/users/me', cookies: { session: session.cookie } });
    expect(byCookie.statusCode).toBe(401);
    expect(byCookie.json()).toMatchObject({ success: false, error: { code: 'unauthenticated' } });
  });

  it('revokes every session of a user on one replica and the other refuses them at once', async () => {
    const user = await createUser('revoked@orbital.test', 'tall green pass phrase 123');
    const first = await loginOn(a, 'revoked@orbital.test', 'tall green pass phrase 123');
    const second = await loginOn(b, 'revoked@orbital.test', 'tall green pass phrase 123');
    expect((await me(a, first)).statusCode).toBe(200);
    expect((await me(a, second)).statusCode).toBe(200);

    const revoke = await b.inject({
      method: 'DELETE',
      url: `/api/users/${user.id}/sessions`,
      headers: bearer(identity.admin),
    });
    expect(revoke.json()).toEqual({ success: true, data: { revoked: 2 } });
    expect((await me(a, first)).statusCode).toBe(401);
    expect((await me(a, second)).statusCode).toBe(401);
    expect((await me(b, first)).statusCode).toBe(401);
  });

  it('applies a role change and a removal from a team on the other replica from the next request', async () => {
    const team = await createTeam('moving', 'M');
    const user = await createUser('mover@orbital.test', 'tall green pass phrase 123');
    await addMember(team.id, { email: 'MOVER@orbital.test', role: 'team_user' });
    const session = await loginOn(b, 'mover@orbital.test', 'tall green pass phrase 123');
    expect((await me(b, session)).json().data.memberships).toMatchObject([{ team_id: team.id, role: 'team_user' }]);
    const members = `/api/teams/${team.id}/members`;
    // The mover adding someone on replica b: allowed only while they are the team's admin.
    const addCookieAsMover = () =>
      b.inject({
        method: 'POST',
        url: members,
        headers: bearer(session),
        payload: { email: 'cookie@orbital.test', role: 'team_user' },
      });
    expect((await addCookieAsMover()).statusCode).toBe(403);

    await asAdmin('PUT', `${members}/${user.id}`, { role: 'team_admin' });
    expect((await me(b, session)).json().data.memberships).toMatchObject([{ team_id: team.id, role: 'team_admin' }]);
    expect((await addCookieAsMover()).statusCode).toBe(201);

    await a.inject({ method: 'DELETE', url: `${members}/${user.id}`, headers: bearer(identity.admin) });
    expect((await b.inject({ method: 'GET', url: `/api/teams/${team.id}`, headers: bearer(session) })).statusCode).toBe(
      403,
    );
    expect((await me(b, session)).json().data.memberships).toEqual([]);
  });
});

describe('teams and members', () => {
  let team: { id: string };
  let lead: Session;
  let leadId: string;

  beforeAll(async () => {
    team = await createTeam('rules', 'Rules');
    leadId = (await createUser('lead@orbital.test', 'tall green pass phrase 123')).id;
    await addMember(team.id, { user_id: leadId, role: 'team_admin' });
    lead = await loginOn(a, 'lead@orbital.test', 'tall green pass phrase 123');
  });

  it('refuses a second team with the same slug and a second user with the same address in another case', async () => {
    const team2 = await asAdmin('POST', '/api/teams', { slug: 'rules', name: 'Again' });
    expect(team2.statusCode).toBe(409);
    const user = await asAdmin('POST', '/api/users', {
      email: 'LEAD@orbital.test',
      name: 'Twin',
      password: 'tall green pass phrase 123',
    });
    expect(user.statusCode).toBe(409);
    expect(user.json()).toMatchObject({ success: false, error: { code: 'conflict' } });
  });

  it('refuses to add a member twice', async () => {
    const again = await addMember(team.id, { user_id: leadId, role: 'team_user' });
    expect(again.statusCode).toBe(409);
  });

  it("makes the team's creator its first team admin", async () => {
    const members = await a.inject({
      method: 'GET',
      url: `/api/teams/${team.id}/members`,
      headers: bearer(identity.admin),
    });
    expect(members.json().data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ user_id: identity.admin.userId, role: 'team_admin' }),
        expect.objectContaining({ user_id: leadId, role: 'team_admin' }),
      ]),
    );
  });

  it('keeps a team admin: a team admin cannot demote or remove the last one, a global admin can', async () => {
    // The creator steps back, so the lead is the team's last team admin.
    const stepBack = await a.inject({
      method: 'DELETE',
      url: `/api/teams/${team.id}/members/${identity.admin.userId}`,
      headers: bearer(identity.admin),
    });
    expect(stepBack.statusCode).toBeLessThan(300);
    const url = `/api/teams/${team.id}/members/${leadId}`;
    const demote = await a.inject({ method: 'PUT', url, headers: bearer(lead), payload: { role: 'team_user' } });
    expect(demote.statusCode).toBe(409);
    expect(demote.json().error.instructions).toContain('team_admin');
    expect((await a.inject({ method: 'DELETE', url, headers: bearer(lead) })).statusCode).toBe(409);
    const byAdmin = await a.inject({
      method: 'PUT',
      url,
      headers: bearer(identity.admin),
      payload: { role: 'team_user' },
    });
    expect(byAdmin.statusCode).toBe(200);
    expect(byAdmin.json().data).toMatchObject({ user_id: leadId, role: 'team_user' });
  });

  it('refuses a weak password for a new user without repeating it', async () => {
    const response = await asAdmin('POST', '/api/users', {
      email: 'weak@orbital.test',
      name: 'Weak',
      password: 'password123!',
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).not.toContain('password123!');
    expect(response.json()).toMatchObject({
      error: { code: 'validation_failed', message: expect.stringContaining('common password') },
    });
  });

  it.each([
    ['POST', '/api/teams', { slug: 'Not A Slug', name: 'x' }],
    ['POST', '/api/teams', { slug: 'ok-slug' }],
    ['PUT', '/api/teams/:team', {}],
    ['PUT', '/api/teams/not-a-uuid', { name: 'x' }],
    [
      'POST',
      '/api/teams/:team/members',
      { user_id: '00000000-0000-4000-8000-000000000000', email: 'a@orbital.test', role: 'team_user' },
    ],
    ['POST', '/api/teams/:team/members', { email: 'a@orbital.test', role: 'owner' }],
    ['PUT', '/api/teams/:team/members/:lead', { role: 'global_admin' }],
    [
      'POST',
      '/api/users',
      { email: 'x@orbital.test', name: 'x', password: 'long enough phrase here', global_role: 'root' },
    ],
  ])('answers 400 with the envelope for %s %s %j', async (method, url, payload) => {
    const response = await a.inject({
      method: method as 'POST' | 'PUT',
      url: url.replace(':team', team.id).replace(':lead', leadId),
      headers: bearer(identity.admin),
      payload,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      success: false,
      error: { code: 'validation_failed', details: expect.any(Array) },
    });
  });

  it('deletes a team, and its members lose access at once', async () => {
    const gone = await createTeam('gone', 'Gone');
    await addMember(gone.id, { user_id: leadId, role: 'team_admin' });
    expect((await b.inject({ method: 'GET', url: `/api/teams/${gone.id}`, headers: bearer(lead) })).statusCode).toBe(
      200,
    );
    expect(
      (await a.inject({ method: 'DELETE', url: `/api/teams/${gone.id}`, headers: bearer(identity.admin) })).statusCode,
    ).toBe(200);
    expect((await b.inject({ method: 'GET', url: `/api/teams/${gone.id}`, headers: bearer(lead) })).statusCode).toBe(
      403,
    );
    expect(
      (await a.inject({ method: 'GET', url: `/api/teams/${gone.id}`, headers: bearer(identity.admin) })).statusCode,
    ).toBe(404);
  });
});

describe('identity subjects for other services', () => {
  it('answers a team by id to the installations service, and to no one else', async () => {
    const bus = identity.stack.gateways[0]?.bus;
    if (!bus) throw new Error('no bus');
    const team = await createTeam('facts', 'Facts');
    const installations = serviceIdentity('installations');
    expect(await bus.request(identityTeamGetSubject, { team_id: team.id }, { identity: installations })).toEqual({
      id: team.id,
      slug: 'facts',
      name: 'Facts',
    });
    await expect(
      bus.request(
        identityTeamGetSubject,
        { team_id: '00000000-0000-4000-8000-000000000000' },
        { identity: installations },
      ),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      bus.request(identityTeamGetSubject, { team_id: 'x.y' } as never, { identity: installations }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      bus.request(identityTeamGetSubject, { team_id: team.id }, { identity: { kind: 'anonymous' } }),
    ).rejects.toMatchObject({ code: 'unauthenticated' });
    const others: CallerIdentity[] = [
      serviceIdentity('jobs'),
      { kind: 'user', user_id: team.id, global_role: 'global_admin', memberships: [] },
    ];
    for (const identity of others) {
      await expect(bus.request(identityTeamGetSubject, { team_id: team.id }, { identity })).rejects.toMatchObject({
        code: 'forbidden',
      });
    }
  });
});

describe('the first admin', () => {
  it('exists once, created when setup ran while the gateways were up, and a new replica does not add another', async () => {
    await identity.stack.addGateway();
    const admins = await identity.sql(`SELECT email FROM identity.users WHERE global_role = 'global_admin'`);
    const hash = await identity.sql(`SELECT password_hash FROM identity.users WHERE email = $1`, [
      adminCredentials.email,
    ]);
    expect(admins).toEqual([{ email: adminCredentials.email }]);
    expect(hash[0].password_hash).toMatch(/^\$argon2id\$/);
  });
});

describe('logs', () => {
  it('never contain a password or a session token', () => {
    const text = identity.stack.logs.text();
    expect(text).toContain('auth.login_failed');
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
