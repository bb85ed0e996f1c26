import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type IdentityStack, login, loginAdmin, type Session, startIdentityStack } from './identityStack.ts';
import { registerTestSatellite, type TestSatellite } from './oauthFlow.ts';
import { heartbeatWithProcesses } from './satelliteHarness.ts';

/**
 * Satellites as people see them: a global admin reads a satellite's queue and configuration with a
 * session (satellite endpoints take a person's session as well as a key) and queues commands over
 * HTTP; team members see the global satellites that serve their team beside their team's own; team admins manage their
 * team's registration tokens. The real gateway, identity, registry and installations services.
 */
let stack: IdentityStack;
let app: FastifyInstance;
let teamA: string;
let teamB: string;
const users = {} as Record<'admin' | 'aliceAdmin' | 'bobUser' | 'carolOther' | 'lonely', Session>;
let globalSatellite: TestSatellite;
let teamASatellite: TestSatellite;
let teamBSatellite: TestSatellite;

async function as(session: Session, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) {
  return app.inject({ method, url, headers: bearer(session), ...(payload ? { payload } : {}) });
}

async function asSatellite(satellite: TestSatellite, method: 'GET' | 'POST', url: string, payload?: object) {
  return app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${satellite.apiKey}` },
    ...(payload ? { payload } : {}),
  });
}

async function ok(response: Awaited<ReturnType<typeof as>>, status = 200) {
  if (response.statusCode !== status) throw new Error(`${response.statusCode} ${response.body}`);
  return response.json().data;
}

beforeAll(async () => {
  stack = await startIdentityStack();
  app = stack.app;
  users.admin = await loginAdmin(app);
  teamA = (await ok(await as(users.admin, 'POST', '/api/teams', { slug: 'people-a', name: 'A' }), 201)).id;
  teamB = (await ok(await as(users.admin, 'POST', '/api/teams', { slug: 'people-b', name: 'B' }), 201)).id;
  const people: Array<[keyof typeof users, string | null, 'team_admin' | 'team_user' | null]> = [
    ['aliceAdmin', teamA, 'team_admin'],
    ['bobUser', teamA, 'team_user'],
    ['carolOther', teamB, 'team_admin'],
    ['lonely', null, null],
  ];
  for (const [name, teamId, role] of people) {
    const credentials = {
      email: `${name.toLowerCase()}@orbital.test`,
      password: `a long pass phrase for person ${people.findIndex((p) => p[0] === name) + 7}`,
    };
    const user = await ok(await as(users.admin, 'POST', '/api/users', { ...credentials, name }), 201);
    if (teamId && role) {
      await ok(await as(users.admin, 'POST', `/api/teams/${teamId}/members`, { user_id: user.id, role }), 201);
    }
    users[name] = await login(app, credentials.email, credentials.password);
  }
  globalSatellite = await registerTestSatellite(app, users.admin);
  teamASatellite = await registerTestSatellite(app, users.admin, { teamId: teamA });
  teamBSatellite = await registerTestSatellite(app, users.admin, { teamId: teamB });
});

afterAll(async () => {
  await stack?.stop();
});

const recovery = (teamId: string) => ({
  command_type: 'configure',
  priority: 'high',
  payload: { team_id: teamId, event: 'mcp_recovery' },
});

describe('a global admin on the satellite endpoints', () => {
  it('queues a command over HTTP, sees it in the queue without leasing it, and the satellite then gets it', async () => {
    const queued = await ok(
      await as(users.admin, 'POST', `/api/satellites/${globalSatellite.id}/commands`, recovery(teamA)),
      201,
    );
    expect(queued.commands).toEqual([
      expect.objectContaining({ satellite_id: globalSatellite.id, command_type: 'configure', status: 'pending' }),
    ]);
    const id = queued.commands[0].id;
    for (let look = 0; look < 2; look++) {
      const peek = await ok(await as(users.admin, 'GET', `/api/satellites/${globalSatellite.id}/commands`));
      expect(peek.commands.map((c: { id: string }) => c.id)).toEqual([id]);
    }
    const polled = await ok(
      await asSatellite(globalSatellite, 'GET', `/api/satellites/${globalSatellite.id}/commands`),
    );
    expect(polled.commands.map((c: { id: string }) => c.id)).toEqual([id]);
    // Leased now: the next poll and the admin's look both find it gone from the deliverable queue.
    expect((await ok(await as(users.admin, 'GET', `/api/satellites/${globalSatellite.id}/commands`))).commands).toEqual(
      [],
    );
  });

  it("refuses a command outside a team satellite's team, and a payload that does not fit", async () => {
    const elsewhere = await as(users.admin, 'POST', `/api/satellites/${teamASatellite.id}/commands`, recovery(teamB));
    expect(elsewhere.statusCode).toBe(403);
    const bad = await as(users.admin, 'POST', `/api/satellites/${teamASatellite.id}/commands`, {
      command_type: 'spawn',
      payload: { team_id: teamA },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('reads the configuration a satellite would run, with every secret value masked', async () => {
    await ok(
      await as(users.admin, 'POST', '/api/mcp/servers', {
        slug: 'people-fs',
        name: 'Files',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'fs'],
        env: { LOG_LEVEL: 'info' },
      }),
      201,
    );
    await ok(
      await as(users.aliceAdmin, 'POST', `/api/teams/${teamA}/mcp/installations`, {
        server_slug: 'people-fs',
        name: 'files',
        env: { API_TOKEN: 'tok-very-secret-123' },
      }),
      201,
    );
    const seen = await as(users.admin, 'GET', `/api/satellites/${globalSatellite.id}/config`);
    expect(seen.statusCode).toBe(200);
    expect(seen.body).not.toContain('tok-very-secret-123');
    const server = seen.json().data.servers.find((s: { team_id: string }) => s.team_id === teamA);
    expect(server.env).toEqual({ LOG_LEVEL: '********', API_TOKEN: '********' });
    // The satellite itself still gets the values it needs.
    const own = await ok(await asSatellite(globalSatellite, 'GET', `/api/satellites/${globalSatellite.id}/config`));
    expect(own.servers.find((s: { team_id: string }) => s.team_id === teamA).env.API_TOKEN).toBe('tok-very-secret-123');
  });

  it('cannot report for a satellite, and other people cannot use the satellite endpoints at all', async () => {
    expect((await as(users.admin, 'POST', `/api/satellites/${globalSatellite.id}/heartbeat`, {})).statusCode).toBe(401);
    for (const person of [users.aliceAdmin, users.bobUser]) {
      expect((await as(person, 'GET', `/api/satellites/${teamASatellite.id}/config`)).statusCode).toBe(403);
      expect((await as(person, 'GET', `/api/satellites/${teamASatellite.id}/commands`)).statusCode).toBe(403);
      expect(
        (await as(person, 'POST', `/api/satellites/${teamASatellite.id}/commands`, recovery(teamA))).statusCode,
      ).toBe(403);
    }
  });
});

describe('team members', () => {
  it('see the global satellites that serve their team beside their own team satellites', async () => {
    const listed = await ok(await as(users.bobUser, 'GET', `/api/teams/${teamA}/satellites`));
    expect(listed.map((s: { id: string }) => s.id).sort()).toEqual([globalSatellite.id, teamASatellite.id].sort());
    const all = await ok(await as(users.bobUser, 'GET', '/api/satellites'));
    expect(all.map((s: { id: string }) => s.id).sort()).toEqual([globalSatellite.id, teamASatellite.id].sort());
    expect((await as(users.bobUser, 'GET', `/api/satellites/${globalSatellite.id}`)).statusCode).toBe(200);
    expect((await as(users.bobUser, 'GET', `/api/satellites/${teamBSatellite.id}`)).statusCode).toBe(404);
    // Someone in no team is served by no satellite.
    expect(await ok(await as(users.lonely, 'GET', '/api/satellites'))).toEqual([]);
    expect((await as(users.lonely, 'GET', `/api/satellites/${globalSatellite.id}`)).statusCode).toBe(404);
  });

  it("see a global satellite's processes of their own teams only", async () => {
    const process = (team: string, name: string) => ({
      process_id: `${name}-${team}`,
      installation_id: `inst-${name}`,
      team_id: team,
      status: 'running',
      health: 'healthy',
      request_count: 1,
    });
    await ok(
      await asSatellite(
        globalSatellite,
        'POST',
        `/api/satellites/${globalSatellite.id}/heartbeat`,
        heartbeatWithProcesses([process(teamA, 'a'), process(teamB, 'b')]),
      ),
    );
    const mine = await ok(await as(users.bobUser, 'GET', `/api/satellites/${globalSatellite.id}/metrics`));
    expect(mine.processes.map((p: { team_id: string }) => p.team_id)).toEqual([teamA]);
    const everything = await ok(await as(users.admin, 'GET', `/api/satellites/${globalSatellite.id}/metrics`));
    expect(everything.processes.map((p: { team_id: string }) => p.team_id).sort()).toEqual([teamA, teamB].sort());
  });

  it("admins list their team's registration tokens, and only theirs", async () => {
    const created = await ok(
      await as(users.aliceAdmin, 'POST', `/api/teams/${teamA}/satellites/registration-tokens`, { description: 'edge' }),
      201,
    );
    const listed = await ok(await as(users.aliceAdmin, 'GET', `/api/teams/${teamA}/satellites/registration-tokens`));
    expect(listed.map((t: { id: string }) => t.id)).toContain(created.id);
    expect(listed.every((t: { team_id: string }) => t.team_id === teamA)).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect((await as(users.carolOther, 'GET', `/api/teams/${teamA}/satellites/registration-tokens`)).statusCode).toBe(
      403,
    );
    expect((await as(users.bobUser, 'GET', `/api/teams/${teamA}/satellites/registration-tokens`)).statusCode).toBe(403);
  });
});
