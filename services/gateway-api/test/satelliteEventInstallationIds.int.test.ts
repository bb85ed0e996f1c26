import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type IdentityStack, loginAdmin, type Session, startIdentityStack } from './identityStack.ts';
import { registerTestSatellite, type TestSatellite } from './oauthFlow.ts';

/**
 * A satellite may write an installation id (a UUID the backend issued) in capitals: gateway-api accepts
 * it, so the installations service must store and apply it exactly as the lower-case form. The real
 * gateway, registry and installations services; satellites registered and authenticated as in production.
 */
let stack: IdentityStack;
let app: FastifyInstance;
let admin: Session;
let teamA: string;
let teamB: string;
let teamSatellite: TestSatellite;
let globalSatellite: TestSatellite;

async function ok(response: Awaited<ReturnType<FastifyInstance['inject']>>, status = 200) {
  if (response.statusCode !== status) throw new Error(`${response.statusCode} ${response.body}`);
  return response.json().data;
}
const asAdmin = (method: 'GET' | 'POST', url: string, payload?: object) =>
  app.inject({ method, url, headers: bearer(admin), ...(payload ? { payload } : {}) });

async function install(teamId: string, name: string): Promise<string> {
  const body = { server_slug: 'ids-filesystem', name };
  return (await ok(await asAdmin('POST', `/api/teams/${teamId}/mcp/installations`, body), 201)).id;
}

/** Sends events as the satellite and expects every one accepted. */
async function send(satellite: TestSatellite, events: object[]) {
  const response = await app.inject({
    method: 'POST',
    url: `/api/satellites/${satellite.id}/events`,
    headers: { authorization: `Bearer ${satellite.apiKey}` },
    payload: { events },
  });
  const data = await ok(response);
  expect(data).toMatchObject({ accepted: events.length, rejected: 0 });
}

const path = (teamId: string, installationId: string) => `/api/teams/${teamId}/mcp/installations/${installationId}`;
const statusOf = async (teamId: string, id: string) =>
  (await ok(await asAdmin('GET', `${path(teamId, id)}/status`))).status;
const logsOf = async (teamId: string, id: string) =>
  (await ok(await asAdmin('GET', `${path(teamId, id)}/logs`))).items.map((l: { message: string }) => l.message);
const requestsOf = async (teamId: string, id: string) =>
  (await ok(await asAdmin('GET', `${path(teamId, id)}/requests`))).items.map(
    (r: { id: string; tool_name: string; success: boolean }) => [r.id, r.tool_name, r.success],
  );

async function waitFor<T>(read: () => Promise<T>, expected: T, timeoutMs = 10000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    last = await read();
  }
  return last;
}

const now = () => new Date().toISOString();
const envelope = (type: string, data: object, id: string = randomUUID()) => ({ id, type, timestamp: now(), data });
const serverRef = (installationId: string, teamId: string) => ({
  server_id: installationId,
  server_slug: 'ids-filesystem',
  installation_name: 'ids',
  team_id: teamId,
});
const statusReported = (installationId: string, teamId: string, status: string) =>
  envelope('mcp.server.status_changed', {
    ...serverRef(installationId, teamId),
    status,
    previous_status: null,
    status_message: `reported ${status}`,
    reason: 'process',
    changed_at: now(),
  });
const toolExecuted = (installationId: string, teamId: string, tool: string, id?: string) =>
  envelope(
    'mcp.tool.executed',
    {
      installation_id: installationId,
      team_id: teamId,
      server_slug: 'ids-filesystem',
      tool_name: tool,
      session_id: null,
      request_params: { path: '/tmp' },
      duration_ms: 5,
      success: true,
      error_message: null,
      executed_at: now(),
    },
    id,
  );
const logLines = (installationId: string, teamId: string, ...messages: string[]) =>
  envelope('mcp.server.logs', {
    installation_id: installationId,
    team_id: teamId,
    server_slug: 'ids-filesystem',
    lines: messages.map((message) => ({ log_level: 'info', message, timestamp: now() })),
  });
const started = (installationId: string, teamId: string) =>
  envelope('mcp.server.started', {
    ...serverRef(installationId, teamId),
    process_id: 4242,
    transport: 'stdio',
    tool_count: 1,
    spawn_duration_ms: 12,
  });
const toolsDiscovered = (installationId: string, teamId: string) =>
  envelope('mcp.tools.discovered', {
    installation_id: installationId,
    installation_name: 'ids',
    team_id: teamId,
    server_slug: 'ids-filesystem',
    tool_count: 1,
    total_tokens: 10,
    tools: [{ tool_name: 'read_file', description: 'Reads a file', input_schema: { type: 'object' }, token_count: 10 }],
    discovered_at: now(),
  });

beforeAll(async () => {
  stack = await startIdentityStack();
  app = stack.app;
  admin = await loginAdmin(app);
  teamA = (await ok(await asAdmin('POST', '/api/teams', { slug: 'ids-a', name: 'A' }), 201)).id;
  teamB = (await ok(await asAdmin('POST', '/api/teams', { slug: 'ids-b', name: 'B' }), 201)).id;
  const template = { slug: 'ids-filesystem', name: 'Filesystem', transport: 'stdio', command: 'npx', args: ['fs'] };
  await ok(await asAdmin('POST', '/api/mcp/servers', template), 201);
  teamSatellite = await registerTestSatellite(app, admin, { teamId: teamA });
  globalSatellite = await registerTestSatellite(app, admin);
});

afterAll(async () => {
  await stack?.stop();
});

describe('satellite events naming an installation in capitals', () => {
  it('are stored and change the status exactly as the lower-case form does', async () => {
    const lower = await install(teamA, 'ids-lower');
    const upper = await install(teamA, 'ids-upper');
    for (const [installation, written] of [
      [lower, lower],
      [upper, upper.toUpperCase()],
    ] as const) {
      const toolCallId = randomUUID();
      const steps: Array<[object, string]> = [
        [statusReported(written, teamA, 'offline'), 'offline'],
        // A successful call reaching an offline server starts its recovery.
        [toolExecuted(written, teamA, 'read_file', toolCallId), 'connecting'],
        [started(written, teamA), 'discovering_tools'],
        [toolsDiscovered(written, teamA), 'online'],
      ];
      for (const [event, expected] of steps) {
        await send(teamSatellite, [event]);
        expect({ written, status: await waitFor(() => statusOf(teamA, installation), expected) }).toEqual({
          written,
          status: expected,
        });
      }
      await send(teamSatellite, [logLines(written, teamA, 'first line', 'second line')]);
      expect(await waitFor(() => logsOf(teamA, installation), ['second line', 'first line'])).toEqual([
        'second line',
        'first line',
      ]);
      expect(await requestsOf(teamA, installation)).toEqual([[toolCallId, 'read_file', true]]);
    }
  }, 60000);

  it('reach their team when a global satellite writes the team id in capitals too', async () => {
    const installation = await install(teamA, 'ids-team-capitals');
    const toolCallId = randomUUID();
    await send(globalSatellite, [
      toolExecuted(installation.toUpperCase(), teamA.toUpperCase(), 'read_file', toolCallId),
      logLines(installation.toUpperCase(), teamA.toUpperCase(), 'a line'),
    ]);
    expect(await waitFor(() => logsOf(teamA, installation), ['a line'])).toEqual(['a line']);
    expect(await requestsOf(teamA, installation)).toEqual([[toolCallId, 'read_file', true]]);
  }, 60000);

  it('reach an installation whose team a global admin wrote in capitals when making it', async () => {
    const team = teamA.toUpperCase();
    const installation = await install(team, 'ids-made-in-capitals');
    const toolCallId = randomUUID();
    // Satellites name the team as the backend issued it; the path in capitals named the same team.
    await send(globalSatellite, [
      toolExecuted(installation, teamA, 'read_file', toolCallId),
      logLines(installation, teamA, 'made in capitals'),
    ]);
    expect(await waitFor(() => logsOf(team, installation), ['made in capitals'])).toEqual(['made in capitals']);
    expect(await requestsOf(team, installation)).toEqual([[toolCallId, 'read_file', true]]);
  }, 60000);

  it('are still ignored when they name another team than the installation belongs to', async () => {
    const ours = await install(teamA, 'ids-ours');
    const theirs = await install(teamB, 'ids-theirs');
    // A global satellite serves every team: the gateway lets it name any team, the installation decides.
    await send(globalSatellite, [
      statusReported(ours.toUpperCase(), teamB, 'offline'),
      toolExecuted(ours.toUpperCase(), teamB, 'sneaky_call'),
      logLines(ours.toUpperCase(), teamB, 'sneaky line'),
      statusReported(theirs.toUpperCase(), teamA.toUpperCase(), 'offline'),
      toolExecuted(theirs.toUpperCase(), teamA.toUpperCase(), 'sneaky_call'),
      logLines(theirs.toUpperCase(), teamA.toUpperCase(), 'sneaky line'),
    ]);
    // Events are applied in the order they were stored: once this one is, those before it were handled.
    await send(globalSatellite, [logLines(theirs.toUpperCase(), teamB, 'own line')]);
    expect(await waitFor(() => logsOf(teamB, theirs), ['own line'])).toEqual(['own line']);
    expect(await logsOf(teamA, ours)).toEqual([]);
    expect(await requestsOf(teamA, ours)).toEqual([]);
    expect(await requestsOf(teamB, theirs)).toEqual([]);
    expect(await statusOf(teamA, ours)).toBe('provisioning');
    expect(await statusOf(teamB, theirs)).toBe('provisioning');
  }, 60000);
});
