import { beforeAll, describe, expect, it } from 'vitest';
import { adminCredentials, bearer, callerAs, login } from './identityStack.ts';
import { introspect, registerTestSatellite, type TestSatellite } from './oauthFlow.ts';
import { useIdentityStack } from './useIdentityStack.ts';

/**
 * People as global admins manage them, over two gateway replicas: search and paging, disabling (sessions
 * and tokens stop at once everywhere), role changes, deletion (a tombstone keeps the id and name), the
 * last active global admin, and each person's own password.
 */
const identity = useIdentityStack({ gateways: 2 });
const { replica, asAdmin, sql } = identity;
let teamId: string;
let satellite: TestSatellite;
const password = (who: string) => `a long pass phrase for ${who.length * 3} tests`;

async function createPerson(name: string, teamRole?: 'team_admin' | 'team_user') {
  const email = `${name}@people.test`;
  const made = await asAdmin()('POST', '/api/users', { email, name, password: password(name) });
  expect(made.statusCode).toBe(201);
  if (teamRole) await asAdmin()('POST', `/api/teams/${teamId}/members`, { email, role: teamRole });
  return { id: made.json().data.id as string, email };
}

beforeAll(async () => {
  teamId = (await asAdmin()('POST', '/api/teams', { slug: 'people', name: 'People' })).json().data.id;
  satellite = await registerTestSatellite(replica(0), identity.admin);
});

describe('the list of people', () => {
  it('searches address and name, filters by status and pages, counting every match', async () => {
    for (const name of ['zoe', 'zack', 'zelda']) await createPerson(name);
    await createPerson('percent');
    const page = await asAdmin()('GET', '/api/users?q=Z&limit=2');
    expect(page.statusCode).toBe(200);
    const body = page.json().data;
    expect(body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(body.items.map((u: { name: string }) => u.name)).toEqual(['zack', 'zelda']);
    expect(body.items[0]).toMatchObject({ status: 'active', has_password: true, global_role: 'global_user' });
    const next = (await asAdmin()('GET', '/api/users?q=z&limit=2&offset=2')).json().data;
    expect(next.items.map((u: { name: string }) => u.name)).toEqual(['zoe']);
    // LIKE wildcards are taken literally.
    expect((await asAdmin()('GET', '/api/users?q=%25')).json().data.total).toBe(0);
    expect((await asAdmin()('GET', '/api/users?q=_')).json().data.total).toBe(0);
    expect((await asAdmin()('GET', '/api/users?status=disabled')).json().data.total).toBe(0);
    const bad = await asAdmin()('GET', '/api/users?limit=0&status=gone');
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .error.details.map((d: { path: string }) => d.path)
        .sort(),
    ).toEqual(['query.limit', 'query.status']);
  });
});

describe('disabling an account', () => {
  it('stops its sessions on every replica and its tokens at once, refuses its logins, and enabling lets it back', async () => {
    const person = await createPerson('dora', 'team_user');
    const session = await login(replica(1), person.email, password('dora'));
    const made = await callerAs(replica(1), session)('POST', '/api/users/me/access-tokens', {
      team_id: teamId,
      name: 'laptop',
    });
    const token = made.json().data.token as string;
    expect((await introspect(replica(1), token, satellite.apiKey)).active).toBe(true);
    // Cached on replica 1 before the change.
    expect(
      (await replica(1).inject({ method: 'GET', url: '/api/users/me', headers: bearer(session) })).statusCode,
    ).toBe(200);

    const disabled = await asAdmin(0)('PUT', `/api/users/${person.id}`, { disabled: true });
    expect(disabled.json().data).toMatchObject({ status: 'disabled', disabled_at: expect.any(String) });
    const after = await replica(1).inject({ method: 'GET', url: '/api/users/me', headers: bearer(session) });
    expect(after.statusCode).toBe(401);
    expect((await introspect(replica(0), token, satellite.apiKey)).active).toBe(false);
    const refused = await replica(1).inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: person.email, password: password('dora') },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({ code: 'account_disabled' });
    // A wrong password says nothing about the account's state.
    const guessed = await replica(1).inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: person.email, password: 'a wrong guess of it' },
    });
    expect(guessed.statusCode).toBe(401);

    const enabled = await asAdmin(1)('PUT', `/api/users/${person.id}`, { disabled: false });
    expect(enabled.json().data).toMatchObject({ status: 'active', disabled_at: null });
    expect((await login(replica(0), person.email, password('dora'))).token).toBeTruthy();
    expect((await introspect(replica(0), token, satellite.apiKey)).active).toBe(true);
  });
});

describe('the global role', () => {
  it('applies from the next request on every replica', async () => {
    const person = await createPerson('gary');
    const session = await login(replica(0), person.email, password('gary'));
    const settings = () => replica(1).inject({ method: 'GET', url: '/api/settings', headers: bearer(session) });
    expect((await settings()).statusCode).toBe(403);
    const promoted = await asAdmin(0)('PUT', `/api/users/${person.id}`, { global_role: 'global_admin' });
    expect(promoted.json().data.global_role).toBe('global_admin');
    expect((await settings()).statusCode).toBe(200);
    await asAdmin(0)('PUT', `/api/users/${person.id}`, { global_role: 'global_user' });
    expect((await settings()).statusCode).toBe(403);
  });

  it('never removes the last active global admin, by demotion, disabling or deletion', async () => {
    const [root] = await sql('SELECT id FROM identity.users WHERE email = $1', [adminCredentials.email]);
    const attempts = [
      asAdmin()('PUT', `/api/users/${root.id}`, { global_role: 'global_user' }),
      asAdmin()('PUT', `/api/users/${root.id}`, { disabled: true }),
      asAdmin()('DELETE', `/api/users/${root.id}`),
    ];
    for (const attempt of await Promise.all(attempts)) {
      expect(attempt.statusCode).toBe(409);
      expect(attempt.json().error).toMatchObject({ code: 'conflict', message: expect.stringContaining('last active') });
    }
    // A disabled admin does not count: a second admin who is disabled leaves root the last active one.
    const second = await createPerson('sam');
    await asAdmin()('PUT', `/api/users/${second.id}`, { global_role: 'global_admin', disabled: true });
    expect((await asAdmin()('PUT', `/api/users/${root.id}`, { global_role: 'global_user' })).statusCode).toBe(409);
    // Two active admins demoting each other at once: one of them stays.
    await asAdmin()('PUT', `/api/users/${second.id}`, { disabled: false });
    const samSession = await login(replica(1), second.email, password('sam'));
    const [one, two] = await Promise.all([
      asAdmin(0)('PUT', `/api/users/${second.id}`, { global_role: 'global_user' }),
      callerAs(replica(1), samSession)('PUT', `/api/users/${root.id}`, { global_role: 'global_user' }),
    ]);
    expect([one.statusCode, two.statusCode].sort()).toEqual([200, 409]);
    const [{ n }] = await sql(
      "SELECT count(*)::int AS n FROM identity.users WHERE global_role = 'global_admin' AND disabled_at IS NULL AND deleted_at IS NULL",
    );
    expect(n).toBe(1);
    // Put root back as the admin of the rest of the file, whichever demotion won.
    await sql("UPDATE identity.users SET global_role = 'global_admin' WHERE id = $1", [root.id]);
    await identity.signInAdminAgain();
  });
});

describe('deleting an account', () => {
  it('removes memberships, sessions and tokens, keeps a tombstone of id and name, and frees the address', async () => {
    const person = await createPerson('ted', 'team_admin');
    const session = await login(replica(0), person.email, password('ted'));
    const token = (
      await callerAs(replica(0), session)('POST', '/api/users/me/access-tokens', { team_id: teamId, name: 'ci' })
    ).json().data.token as string;
    const deleted = await asAdmin(1)('DELETE', `/api/users/${person.id}`);
    expect(deleted.json()).toEqual({ success: true, data: { deleted: true } });

    expect(
      (await replica(0).inject({ method: 'GET', url: '/api/users/me', headers: bearer(session) })).statusCode,
    ).toBe(401);
    expect((await introspect(replica(0), token, satellite.apiKey)).active).toBe(false);
    const members = (await asAdmin()('GET', `/api/teams/${teamId}/members`)).json().data as Array<{ user_id: string }>;
    expect(members.map((m) => m.user_id)).not.toContain(person.id);
    expect((await asAdmin()('GET', `/api/users/${person.id}`)).statusCode).toBe(404);
    expect((await asAdmin()('DELETE', `/api/users/${person.id}`)).statusCode).toBe(404);
    expect((await asAdmin()('GET', '/api/users?q=ted')).json().data.total).toBe(0);
    const login401 = await replica(0).inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: person.email, password: password('ted') },
    });
    expect(login401.statusCode).toBe(401);

    const [tombstone] = await sql('SELECT name, email, password_hash, deleted_at FROM identity.users WHERE id = $1', [
      person.id,
    ]);
    expect(tombstone).toMatchObject({ name: 'ted', email: null, password_hash: null, deleted_at: expect.any(Date) });
    // The address can be given to a new account.
    expect(
      (await asAdmin()('POST', '/api/users', { email: person.email, name: 'ted again', password: password('ted') }))
        .statusCode,
    ).toBe(201);
  });
});

describe('changing your own password', () => {
  it('needs the current password, follows the policy, and ends your other sessions', async () => {
    const person = await createPerson('paula');
    const here = await login(replica(0), person.email, password('paula'));
    const elsewhere = await login(replica(1), person.email, password('paula'));
    const change = (body: unknown) => callerAs(replica(0), here)('PUT', '/api/users/me/password', body);

    const wrong = await change({ current_password: 'not my password', new_password: 'a brand new pass phrase' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.details).toEqual([{ path: 'body.current_password', message: 'is wrong' }]);
    const weak = await change({ current_password: password('paula'), new_password: 'short' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().error.details[0]).toMatchObject({ path: 'body.new_password' });
    const missing = await change({ new_password: 'a brand new pass phrase' });
    expect(missing.json().error.details[0]).toMatchObject({ path: 'body.current_password' });
    // Nothing changed so far: the other session still works.
    expect(
      (await replica(1).inject({ method: 'GET', url: '/api/users/me', headers: bearer(elsewhere) })).statusCode,
    ).toBe(200);

    const done = await change({ current_password: password('paula'), new_password: 'a brand new pass phrase' });
    expect(done.statusCode).toBe(200);
    expect((await replica(0).inject({ method: 'GET', url: '/api/users/me', headers: bearer(here) })).statusCode).toBe(
      200,
    );
    expect(
      (await replica(1).inject({ method: 'GET', url: '/api/users/me', headers: bearer(elsewhere) })).statusCode,
    ).toBe(401);
    await expect(login(replica(1), person.email, password('paula'))).rejects.toThrow(/401/);
    expect((await login(replica(1), person.email, 'a brand new pass phrase')).token).toBeTruthy();
  });
});
