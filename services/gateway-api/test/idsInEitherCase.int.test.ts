import { type Bus, createBus } from '@orbital/bus';
import { type CallerIdentity, installationSubjects, registrySubjects, serviceIdentity } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type IdentityStack, login, loginAdmin, type Session, startIdentityStack } from './identityStack.ts';
import { registerTestSatellite, type TestSatellite } from './oauthFlow.ts';

/**
 * A UUID names the same team, satellite or installation in either case, so an id a caller writes in
 * capitals (in a path, a body or a subject's request) reaches what was written in lower case, and the
 * other way round; every service sees and stores one form. The real gateway, settings, registry and
 * installations services; people and satellites authenticated as in production.
 */
let stack: IdentityStack;
let app: FastifyInstance;
let client: Bus;
let admin: Session;
let teamAdmin: Session;
let otherTeamAdmin: Session;
let teamA: string;
let teamB: string;
let satellite: TestSatellite;
let otherSatellite: TestSatellite;

type Injected = Awaited<ReturnType<FastifyInstance['inject']>>;

async function ok(response: Injected, status = 200) {
  if (response.statusCode !== status) throw new Error(`${response.statusCode} ${response.body}`);
  return response.json().data;
}
const as = (session: Session, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  app.inject({ method, url, headers: bearer(session), ...(payload ? { payload } : {}) });
const asSatellite = (who: TestSatellite, method: 'GET' | 'POST', url: string, payload?: object) =>
  app.inject({ method, url, headers: { authorization: `Bearer ${who.apiKey}` }, ...(payload ? { payload } : {}) });

const upper = (id: string) => id.toUpperCase();
const names = (items: Array<{ name: string }>) => items.map((item) => item.name).sort();

beforeAll(async () => {
  stack = await startIdentityStack();
  app = stack.app;
  admin = await loginAdmin(app);
  teamA = (await ok(await as(admin, 'POST', '/api/teams', { slug: 'case-a', name: 'A' }), 201)).id;
  teamB = (await ok(await as(admin, 'POST', '/api/teams', { slug: 'case-b', name: 'B' }), 201)).id;
  const member = async (email: string, teamId: string) => {
    const password = `long pass phrase number ${email.length} 42`;
    const user = await ok(await as(admin, 'POST', '/api/users', { email, password, name: email }), 201);
    await ok(await as(admin, 'POST', `/api/teams/${teamId}/members`, { user_id: user.id, role: 'team_admin' }), 201);
    return login(app, email, password);
  };
  teamAdmin = await member('case-admin@orbital.test', teamA);
  otherTeamAdmin = await member('case-other@orbital.test', teamB);
  const template = { slug: 'case-filesystem', name: 'Filesystem', transport: 'stdio', command: 'npx', args: ['fs'] };
  await ok(await as(admin, 'POST', '/api/mcp/servers', template), 201);
  satellite = await registerTestSatellite(app, admin, { teamId: teamA });
  otherSatellite = await registerTestSatellite(app, admin, { teamId: teamA });
  client = await createBus({ ...stack.env.busOptions('ids-in-either-case'), logger: stack.logger });
});

afterAll(async () => {
  await client?.drain();
  await stack?.stop();
});

describe('ids in a path, in capitals or not', () => {
  it("let a team's member reach their team's installations, written and read in either form", async () => {
    const written = await ok(
      await as(teamAdmin, 'POST', `/api/teams/${upper(teamA)}/mcp/installations`, {
        server_slug: 'case-filesystem',
        name: 'made-in-capitals',
      }),
      201,
    );
    expect(written.team_id).toBe(teamA);
    await ok(
      await as(teamAdmin, 'POST', `/api/teams/${teamA}/mcp/installations`, {
        server_slug: 'case-filesystem',
        name: 'made-in-lower-case',
      }),
      201,
    );
    // One name per team whatever the form of its id: the second spelling is the same team.
    const twice = await as(teamAdmin, 'POST', `/api/teams/${upper(teamA)}/mcp/installations`, {
      server_slug: 'case-filesystem',
      name: 'made-in-lower-case',
    });
    expect(twice.statusCode).toBe(409);

    for (const teamId of [teamA, upper(teamA)]) {
      const listed = await ok(await as(teamAdmin, 'GET', `/api/teams/${teamId}/mcp/installations`));
      expect({ teamId, names: names(listed) }).toEqual({ teamId, names: ['made-in-capitals', 'made-in-lower-case'] });
      for (const installationId of [written.id, upper(written.id)]) {
        const one = await ok(await as(teamAdmin, 'GET', `/api/teams/${teamId}/mcp/installations/${installationId}`));
        expect(one).toMatchObject({ id: written.id, team_id: teamA, name: 'made-in-capitals' });
        const status = await ok(
          await as(teamAdmin, 'GET', `/api/teams/${teamId}/mcp/installations/${installationId}/status`),
        );
        expect(status.status).toBe('provisioning');
      }
    }
    const renamed = await ok(
      await as(teamAdmin, 'PUT', `/api/teams/${upper(teamA)}/mcp/installations/${upper(written.id)}`, {
        name: 'renamed',
      }),
    );
    expect(renamed).toMatchObject({ id: written.id, team_id: teamA, name: 'renamed' });
  });

  it('still refuse a member of another team, in either form', async () => {
    for (const teamId of [teamA, upper(teamA)]) {
      const response = await as(otherTeamAdmin, 'GET', `/api/teams/${teamId}/mcp/installations`);
      expect({ teamId, status: response.statusCode }).toEqual({ teamId, status: 403 });
    }
    const listed = await ok(await as(otherTeamAdmin, 'GET', `/api/teams/${upper(teamB)}/mcp/installations`));
    expect(listed).toEqual([]);
  });

  it("keep a team's registration tokens and satellites together, whatever form made them", async () => {
    const token = await ok(
      await as(teamAdmin, 'POST', `/api/teams/${upper(teamA)}/satellites/registration-tokens`, {
        description: 'made in capitals',
      }),
      201,
    );
    const listed = await ok(await as(teamAdmin, 'GET', `/api/teams/${teamA}/satellites/registration-tokens`));
    expect(listed.map((t: { description: string | null }) => t.description)).toContain('made in capitals');
    const registered = await ok(
      await app.inject({
        method: 'POST',
        url: '/api/satellites/register',
        headers: { authorization: token.authorization },
        payload: { name: 'case-satellite', team_id: upper(teamA) },
      }),
      201,
    );
    expect(registered.team_id).toBe(teamA);
    for (const teamId of [teamA, upper(teamA)]) {
      const satellites = await ok(await as(teamAdmin, 'GET', `/api/teams/${teamId}/satellites`));
      expect(satellites.map((s: { id: string }) => s.id)).toContain(registered.satellite_id);
    }
  });

  it("let a satellite act on its own id in capitals, and on no other satellite's", async () => {
    const poll = await asSatellite(satellite, 'GET', `/api/satellites/${upper(satellite.id)}/commands`);
    expect(poll.statusCode).toBe(200);
    const config = await ok(await asSatellite(satellite, 'GET', `/api/satellites/${upper(satellite.id)}/config`));
    expect(config).toBeDefined();
    const foreign = await asSatellite(satellite, 'GET', `/api/satellites/${upper(otherSatellite.id)}/commands`);
    expect(foreign.statusCode).toBe(403);
  });

  it('still answer 400 for an id that is no UUID in any case', async () => {
    const response = await as(teamAdmin, 'GET', `/api/teams/${teamA}/mcp/installations/NOT-A-UUID`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual([
      { path: 'params.installationId', message: 'must be a installation id (UUID)' },
    ]);
  });
});

describe('ids in a subject request, in capitals or not', () => {
  const teamMember = (): CallerIdentity => ({
    kind: 'user',
    user_id: teamAdmin.userId,
    global_role: 'global_user',
    memberships: [{ team_id: teamA, role: 'team_admin' }],
  });

  it("reach the team's records and pass its access check in either form", async () => {
    for (const teamId of [teamA, upper(teamA)]) {
      const installations = await client.request(
        installationSubjects.listInstallations,
        { team_id: teamId },
        { identity: teamMember() },
      );
      expect({ teamId, names: names(installations) }).toEqual({
        teamId,
        names: ['made-in-lower-case', 'renamed'],
      });
      const satellites = await client.request(
        registrySubjects.listSatellites,
        { team_id: teamId },
        { identity: teamMember() },
      );
      expect(satellites.map((s) => s.id)).toContain(satellite.id);
    }
  });

  it("queue a team's commands for its satellites when the payload names the team in capitals", async () => {
    const { commands } = await client.request(
      registrySubjects.createCommand,
      { command_type: 'configure', payload: { team_id: upper(teamA), event: 'mcp_recovery' } },
      { identity: serviceIdentity('installations') },
    );
    expect(commands.map((c) => c.satellite_id)).toEqual(expect.arrayContaining([satellite.id, otherSatellite.id]));
    expect(new Set(commands.map((c) => c.team_id))).toEqual(new Set([teamA]));
  });

  it('still refuse a member of another team naming it in capitals', async () => {
    const outsider: CallerIdentity = {
      kind: 'user',
      user_id: otherTeamAdmin.userId,
      global_role: 'global_user',
      memberships: [{ team_id: teamB, role: 'team_admin' }],
    };
    const refused = await client
      .request(installationSubjects.listInstallations, { team_id: upper(teamA) }, { identity: outsider })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('forbidden');
  });
});
