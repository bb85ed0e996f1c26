import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSignedInMember, login } from './identityStack.ts';
import {
  activate,
  adminCredentials,
  call,
  registerWith,
  type SatelliteStack,
  satelliteBody,
  startSatelliteStack,
} from './satelliteHarness.ts';

/**
 * The people-facing satellite routes through real sessions: tokens generated over HTTP register
 * satellites over HTTP, and listing follows the caller's teams.
 */
let stack: SatelliteStack;
const sessions: Record<string, string> = {};
let teamA = '';
let teamB = '';

async function as(who: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) {
  return stack.gateway.inject({
    method,
    url,
    headers: { authorization: `Bearer ${sessions[who]}` },
    ...(payload ? { payload } : {}),
  });
}

beforeAll(async () => {
  stack = await startSatelliteStack({ settings: true });
  const admin = await login(stack.gateway, adminCredentials.email, adminCredentials.password);
  sessions.admin = admin.token;
  const made = await as('admin', 'POST', '/api/teams', { slug: 'alpha', name: 'Alpha' });
  if (made.statusCode !== 201) throw new Error(`team creation failed: ${made.statusCode} ${made.body}`);
  teamA = made.json().data.id;
  teamB = (await as('admin', 'POST', '/api/teams', { slug: 'beta', name: 'Beta' })).json().data.id;
  for (const [who, teamId, role] of [
    ['aAdmin', teamA, 'team_admin'],
    ['aUser', teamA, 'team_user'],
    ['bAdmin', teamB, 'team_admin'],
  ] as const) {
    const member = await addSignedInMember(stack.gateway, admin, teamId, role, {
      email: `${who.toLowerCase()}@orbital.test`,
      password: `a long pass phrase, number ${who.length}42`,
      name: who,
    });
    sessions[who] = member.token;
  }
});
afterAll(async () => {
  await stack?.stop();
});

async function registerThrough(who: string, teamId: string | null, name: string) {
  const url = teamId ? `/api/teams/${teamId}/satellites/registration-tokens` : '/api/satellites/registration-tokens';
  const token = await as(who, 'POST', url, { expires_in_minutes: 30, description: name });
  expect(token.statusCode).toBe(201);
  const registered = await registerWith(stack, token.json().data.authorization, satelliteBody(name));
  expect(registered.statusCode).toBe(201);
  const { satellite_id: id, api_key: apiKey } = registered.json().data;
  return { id, apiKey, tokenId: token.json().data.id as string };
}

describe('registration tokens over HTTP', () => {
  it('let a global admin make global tokens and team admins and members make their team tokens', async () => {
    const global = await registerThrough('admin', null, 'g1');
    const team = await registerThrough('aAdmin', teamA, 'a1');
    // A global_user may register team satellites within their memberships.
    await registerThrough('aUser', teamA, 'a2');
    expect((await as('aAdmin', 'POST', '/api/satellites/registration-tokens', {})).statusCode).toBe(403);
    expect((await as('bAdmin', 'POST', `/api/teams/${teamA}/satellites/registration-tokens`, {})).statusCode).toBe(403);
    expect((await as('aUser', 'GET', `/api/teams/${teamA}/satellites/registration-tokens`)).statusCode).toBe(403);

    const listed = await as('aAdmin', 'GET', `/api/teams/${teamA}/satellites/registration-tokens`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.find((t: { id: string }) => t.id === team.tokenId)).toMatchObject({
      state: 'used',
      used_by_satellite_id: team.id,
    });
    const globalList = await as('admin', 'GET', '/api/satellites/registration-tokens');
    expect(globalList.json().data.map((t: { id: string }) => t.id)).toContain(global.tokenId);
  });

  it('can be revoked by their scope’s admins, and only unused', async () => {
    const made = (await as('aAdmin', 'POST', `/api/teams/${teamA}/satellites/registration-tokens`, {})).json().data;
    expect(
      (await as('bAdmin', 'DELETE', `/api/teams/${teamB}/satellites/registration-tokens/${made.id}`)).statusCode,
    ).toBe(404);
    const revoked = await as('aAdmin', 'DELETE', `/api/teams/${teamA}/satellites/registration-tokens/${made.id}`);
    expect(revoked.json().data.state).toBe('revoked');
    expect((await registerWith(stack, made.authorization, satelliteBody('late'))).statusCode).toBe(401);

    const globalToken = (await as('admin', 'POST', '/api/satellites/registration-tokens', {})).json().data;
    expect((await as('admin', 'DELETE', `/api/satellites/registration-tokens/${globalToken.id}`)).statusCode).toBe(200);
  });

  it('refuse a lifetime outside 5 minutes to 7 days', async () => {
    const response = await as('admin', 'POST', '/api/satellites/registration-tokens', { expires_in_minutes: 1 });
    expect(response.statusCode).toBe(400);
  });
});

describe('satellite listing and status', () => {
  it('shows each role what it may see, and hides other teams’ satellites as not found', async () => {
    const a = await registerThrough('aAdmin', teamA, 'list-a');
    const b = await registerThrough('bAdmin', teamB, 'list-b');
    await activate(stack, a);

    const all = (await as('admin', 'GET', '/api/satellites')).json().data.map((s: { id: string }) => s.id);
    expect(all).toEqual(expect.arrayContaining([a.id, b.id]));
    const forA = (await as('aUser', 'GET', '/api/satellites')).json().data;
    // Team A's satellites, and the global satellites, which serve team A too.
    expect(
      forA.every(
        (s: { team_id: string; satellite_type: string }) => s.team_id === teamA || s.satellite_type === 'global',
      ),
    ).toBe(true);
    expect(forA.map((s: { id: string }) => s.id)).toContain(a.id);

    expect((await as('aUser', 'GET', `/api/teams/${teamA}/satellites`)).statusCode).toBe(200);
    expect((await as('aUser', 'GET', `/api/teams/${teamB}/satellites`)).statusCode).toBe(403);
    const status = await as('aUser', 'GET', `/api/satellites/${a.id}`);
    expect(status.json().data).toMatchObject({ id: a.id, status: 'active', online: true, team_id: teamA });
    expect((await as('aUser', 'GET', `/api/satellites/${b.id}`)).statusCode).toBe(404);

    const metrics = await as('aUser', 'GET', `/api/satellites/${a.id}/metrics?limit=5`);
    expect(metrics.statusCode).toBe(200);
    expect(metrics.json().data.heartbeats).toHaveLength(1);
    expect((await as('aUser', 'GET', `/api/satellites/${b.id}/metrics`)).statusCode).toBe(404);
    expect((await stack.gateway.inject({ method: 'GET', url: '/api/satellites' })).statusCode).toBe(401);
  });

  it('lets team admins fence and revoke their satellites, and nobody else', async () => {
    const a = await registerThrough('aAdmin', teamA, 'managed');
    expect(
      (await as('aUser', 'PUT', `/api/satellites/${a.id}/ip-allowlist`, { ip_allowlist: ['10.0.0.0/8'] })).statusCode,
    ).toBe(403);
    expect((await as('bAdmin', 'DELETE', `/api/satellites/${a.id}`)).statusCode).toBe(404);
    const fenced = await as('aAdmin', 'PUT', `/api/satellites/${a.id}/ip-allowlist`, { ip_allowlist: ['10.0.0.0/8'] });
    expect(fenced.json().data.ip_allowlist).toEqual(['10.0.0.0/8']);
    const revoked = await as('aAdmin', 'DELETE', `/api/satellites/${a.id}`);
    expect(revoked.json().data.status).toBe('revoked');
    expect((await call(stack, a, 'GET', `${a.id}/commands`, undefined, { remoteAddress: '10.0.0.1' })).statusCode).toBe(
      401,
    );
  });

  it("takes a global admin's session on a satellite's read routes only, and no other user's", async () => {
    const a = await registerThrough('aAdmin', teamA, 'no-users');
    expect((await as('admin', 'POST', `/api/satellites/${a.id}/heartbeat`, {})).statusCode).toBe(401);
    expect((await as('aAdmin', 'GET', `/api/satellites/${a.id}/commands`)).statusCode).toBe(403);
    expect((await as('admin', 'GET', `/api/satellites/${a.id}/commands`)).statusCode).toBe(200);
  });
});
