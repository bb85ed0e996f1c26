import { beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '../src/app.ts';
import { isProxyRoute } from '../src/http/proxyRoute.ts';
import { type AccessContext, type AccessRole, accessMatrix, accessRoles } from './accessMatrix.ts';
import { adminCredentials, bearer, login, type Session } from './identityStack.ts';
import { useIdentityStack } from './useIdentityStack.ts';

const identity = useIdentityStack({
  // The whole table logs in from one address; the per-address limit has its own test.
  loginRateLimits: {
    accountAtAddress: { maxAttempts: 5, windowSeconds: 900 },
    account: { maxAttempts: 100, windowSeconds: 900 },
    address: { maxAttempts: 1000, windowSeconds: 900 },
  },
});
let ctx: AccessContext;
const sessions = new Map<AccessRole, Session>();
const passwords = new Map<AccessRole, { email: string; password: string }>();

async function asAdmin(method: 'POST' | 'GET' | 'DELETE', url: string, payload?: unknown) {
  const app = identity.stack.app;
  if (!app) throw new Error('no gateway');
  const admin = sessions.get('global_admin');
  if (!admin) throw new Error('no admin session');
  const response = await app.inject({ method, url, headers: bearer(admin), ...(payload ? { payload } : {}) });
  if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.body ? response.json().data : null;
}

beforeAll(async () => {
  const app = identity.replica();
  passwords.set('global_admin', adminCredentials);
  sessions.set('global_admin', identity.admin);
  const teamA = await asAdmin('POST', '/api/teams', { slug: 'team-a', name: 'Team A' });
  const teamB = await asAdmin('POST', '/api/teams', { slug: 'team-b', name: 'Team B' });
  const members: Array<[AccessRole, string | null, 'team_admin' | 'team_user' | null]> = [
    ['team_admin', teamA.id, 'team_admin'],
    ['team_user', teamA.id, 'team_user'],
    ['other_team', teamB.id, 'team_admin'],
    ['no_team', null, null],
  ];
  let teamUserId = '';
  for (const [role, teamId, teamRole] of members) {
    const credentials = { email: `${role.replace('_', '-')}@orbital.test`, password: `pass phrase of ${role} 42` };
    const user = await asAdmin('POST', '/api/users', { ...credentials, name: role });
    if (teamId && teamRole) await asAdmin('POST', `/api/teams/${teamId}/members`, { user_id: user.id, role: teamRole });
    if (role === 'team_user') teamUserId = user.id;
    passwords.set(role, credentials);
    sessions.set(role, await login(app, credentials.email, credentials.password));
  }
  // Creating a team made the admin its first team admin; the table's global_admin is the admin outside
  // every team (what a global role alone allows), so they step back from both now that others lead them.
  const adminId = sessions.get('global_admin')?.userId;
  for (const team of [teamA, teamB]) {
    await asAdmin('DELETE', `/api/teams/${team.id}/members/${adminId}`);
  }
  ctx = { teamA: teamA.id, teamB: teamB.id, teamUserId };
});

describe('the access matrix', () => {
  it('has a row for every route the gateway registers', () => {
    const app = identity.stack.app;
    if (!app) throw new Error('no gateway');
    const rows = new Set(accessMatrix.map((row) => `${row.method} ${row.route}`));
    const routes = routesOf(app).map((route) => `${route.method} ${route.url}`);
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.filter((route) => !rows.has(route))).toEqual([]);
  });

  it("gives every route that serves a subject the subject's own access, not one of its own", () => {
    const app = identity.stack.app;
    if (!app) throw new Error('no gateway');
    const relaying = routesOf(app).filter(isProxyRoute);
    expect(relaying.length).toBeGreaterThanOrEqual(60);
    const restated = relaying.filter((route) => route.access !== route.relays.access);
    expect(restated.map((route) => `${route.method} ${route.url} (${route.relays.subject})`)).toEqual([]);
  });

  const cases = accessMatrix.flatMap((row) => accessRoles.map((role) => ({ row, role, status: row.expect[role] })));
  it.each(cases)('$row.method $row.route as $role answers $status', async ({ row, role, status }) => {
    const app = identity.stack.app;
    if (!app) throw new Error('no gateway');
    let headers: Record<string, string> = {};
    if (role !== 'anonymous') {
      let session = sessions.get(role);
      const credentials = passwords.get(role);
      if (!session || !credentials) throw new Error(`no session for ${role}`);
      if (row.freshSession) session = await login(app, credentials.email, credentials.password);
      headers = bearer(session);
    }
    const body = row.body?.(ctx);
    if (row.stream) {
      // A stream a caller may open never ends: read its status as soon as the head is written.
      const response = await app.inject({ method: row.method, url: row.url(ctx), headers, payloadAsStream: true });
      const payload = response.stream();
      if (response.statusCode === 200) {
        expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
        payload.destroy();
        response.raw.res.destroy();
      } else {
        let text = '';
        for await (const chunk of payload) text += String(chunk);
        expect(JSON.parse(text)).toMatchObject({ success: false, error: { code: expect.any(String) } });
      }
      expect(response.statusCode).toBe(status);
      return;
    }
    const response = await app.inject({
      method: row.method,
      url: row.url(ctx),
      headers,
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    if (row.errorShape === 'html') {
      expect(response.statusCode).toBe(status);
      if (status >= 400) expect(response.headers['content-type']).toMatch(/^text\/html/);
      return;
    }
    // A redirect (the OAuth callback's) has no JSON body.
    const answered = response.headers['content-type']?.includes('json') ? response.json() : response.body;
    expect({ status: response.statusCode, body: answered }).toMatchObject({ status });
    if (response.statusCode >= 400) {
      const body = response.json();
      const oauthShaped = row.errorShape === 'oauth' && typeof body.error === 'string';
      expect(body).toMatchObject(
        oauthShaped ? { error: expect.any(String) } : { success: false, error: { code: expect.any(String) } },
      );
    }
  });
});

describe('credentials', () => {
  it('accepts the session cookie instead of the bearer token', async () => {
    const app = identity.stack.app;
    const session = sessions.get('team_user');
    if (!app || !session) throw new Error('missing fixture');
    const response = await app.inject({ method: 'GET', url: '/api/users/me', cookies: { session: session.cookie } });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      global_role: 'global_user',
      memberships: [{ team_id: ctx.teamA, team_slug: 'team-a', role: 'team_user' }],
      permissions: [],
    });
    expect(response.json().data.memberships[0].permissions.sort()).toEqual(
      ['installations.view', 'satellites.register', 'satellites.view', 'team.view'].sort(),
    );
  });

  it.each([
    ['a token that was never issued', { authorization: `Bearer ${'A'.repeat(43)}` }],
    ['a malformed token', { authorization: 'Bearer not-a-token' }],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])('refuses %s with 401', async (_name, headers) => {
    const app = identity.stack.app;
    if (!app) throw new Error('no gateway');
    const response = await app.inject({ method: 'GET', url: '/api/users/me', headers });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ success: false, error: { code: 'unauthenticated' } });
  });

  it('lists only their own teams to members, every team to the admin', async () => {
    const app = identity.stack.app;
    const user = sessions.get('team_user');
    const admin = sessions.get('global_admin');
    if (!app || !user || !admin) throw new Error('missing fixture');
    const mine = (await app.inject({ method: 'GET', url: '/api/teams', headers: bearer(user) })).json().data;
    expect(mine.map((t: { slug: string }) => t.slug)).toEqual(['team-a']);
    const all = (await app.inject({ method: 'GET', url: '/api/teams', headers: bearer(admin) })).json().data;
    expect(all.map((t: { slug: string }) => t.slug)).toEqual(expect.arrayContaining(['team-a', 'team-b']));
  });
});

/**
 * Malformed input on every route an administrator may call: a NUL character anywhere (path, query,
 * body) is a 400 naming where it is, and a malformed id in the path is a 400 naming the parameter (or
 * a 404 where the parameter is a name, not an id), never a 500.
 */
describe('malformed input', () => {
  const adminRows = accessMatrix.filter((row) => row.expect.global_admin < 400 || row.expect.global_admin === 404);
  const withParams = adminRows.filter((row) => row.route.includes('/:') && !row.freshSession);

  /** The row's URL with the path segment of parameter `name` replaced by `value`. */
  function urlWith(row: (typeof accessMatrix)[number], name: string, value: string): string {
    const [path, query] = row.url(ctx).split('?') as [string, string | undefined];
    const segments = path.split('/');
    const index = row.route.split('/').indexOf(`:${name}`);
    segments[index] = value;
    return `${segments.join('/')}${query === undefined ? '' : `?${query}`}`;
  }

  async function asAdminRaw(method: string, url: string, payload?: unknown) {
    const app = identity.stack.app;
    const admin = sessions.get('global_admin');
    if (!app || !admin) throw new Error('missing fixture');
    return app.inject({
      method: method as 'GET',
      url,
      headers: bearer(admin),
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  }

  const paramCases = withParams.flatMap((row) =>
    [...row.route.matchAll(/:(\w+)/g)].map((match) => ({ row, name: match[1] as string })),
  );

  it.each(paramCases)('$row.method $row.route refuses a NUL in :$name, naming it', async ({ row, name }) => {
    const response = await asAdminRaw(row.method, urlWith(row, name, 'a%00b'), row.body?.(ctx));
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.details).toEqual([
      { path: `params.${name}`, message: 'must not contain NUL characters (U+0000)' },
    ]);
  });

  it.each(paramCases)('$row.method $row.route answers a malformed :$name without a 500', async ({ row, name }) => {
    const response = await asAdminRaw(row.method, urlWith(row, name, 'not-an-id'), row.body?.(ctx));
    expect([400, 404], response.body).toContain(response.statusCode);
    if (response.statusCode === 400) {
      expect(JSON.stringify(response.json().error.details)).toContain(`params.${name}`);
    }
  });

  it.each(adminRows.filter((row) => !row.freshSession))(
    '$method $route refuses a NUL in the query string',
    async (row) => {
      const url = row.url(ctx);
      const response = await asAdminRaw(row.method, `${url}${url.includes('?') ? '&' : '?'}q=x%00`, row.body?.(ctx));
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error.details).toEqual([
        { path: 'query.q', message: 'must not contain NUL characters (U+0000)' },
      ]);
    },
  );

  /** The body with a NUL appended to its first string, and that string's path. */
  function withNul(body: unknown, path: string[] = []): { body: unknown; path: string[] } | null {
    if (typeof body === 'string') return { body: `${body}\u0000`, path };
    if (typeof body !== 'object' || body === null) return null;
    for (const [key, value] of Object.entries(body)) {
      const found = withNul(value, [...path, key]);
      if (found)
        return {
          body: Array.isArray(body) ? Object.assign([...body], { [key]: found.body }) : { ...body, [key]: found.body },
          path: found.path,
        };
    }
    return null;
  }
  const shapeContext: AccessContext = { teamA: 'a', teamB: 'b', teamUserId: 'u' };
  const bodyCases = adminRows
    // Collected before the context exists: the shape of a body does not depend on its ids.
    .filter((row) => !row.freshSession && row.body && withNul(row.body(shapeContext)) !== null)
    .filter((row) => row.errorShape === undefined);

  it.each(bodyCases)('$method $route refuses a NUL in its body, naming the field', async (row) => {
    const changed = withNul(row.body?.(ctx)) as { body: unknown; path: string[] };
    const response = await asAdminRaw(row.method, row.url(ctx), changed.body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.details).toEqual([
      { path: ['body', ...changed.path].join('.'), message: 'must not contain NUL characters (U+0000)' },
    ]);
  });
});
