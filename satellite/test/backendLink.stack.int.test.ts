import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadConfig } from '@orbital/config';
import { registrySubjects, serviceIdentity } from '@orbital/contracts';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer } from '../../services/gateway-api/test/identityStack.ts';
import { useIdentityStack } from '../../services/gateway-api/test/useIdentityStack.ts';
import { createSatelliteApp, type SatelliteApp } from '../src/app.ts';
import { type BackendLink, createBackendLink } from '../src/backend/createBackendLink.ts';
import { satelliteEnv } from '../src/config.ts';
import { createManualScheduler, type ManualScheduler } from './createManualScheduler.ts';
import { connectClient, fixtureStdioServer, silentLogger, textOf } from './helpers.ts';
import { tempStateDir } from './linkFixture.ts';

/**
 * The satellite's link against the real backend: settings, registry, installations and gateway-api on
 * real PostgreSQL, NATS and Redis (gateway-api's identity stack), the satellite talking to gateway-api
 * over HTTP. The link's clock is manual; the backend, the MCP servers and HTTP run in real time.
 */
const identity = useIdentityStack();
let gateway: FastifyInstance;
let backendUrl = '';
let teamId = '';
let firstInstallation = '';
let scheduler: ManualScheduler;
let link: BackendLink;
let satellite: SatelliteApp;
let mcp: Client;
let mcpUrl: URL;

async function api(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) {
  const response = await gateway.inject({
    method,
    url,
    headers: bearer(identity.admin),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: response.statusCode, body: response.json() };
}

async function installationStatus(id: string): Promise<string> {
  return (await api('GET', `/api/teams/${teamId}/mcp/installations/${id}/status`)).body.data?.status;
}

/** Runs the event queue's next batch (the 3-second window) until the queue is empty. */
async function sendEvents() {
  for (let i = 0; i < 20 && link.events.stats().queueSize > 0; i++) await link.events.runCycle();
}

const satelliteId = () => link.identity.current()?.satellite_id ?? '';

async function commandsOf(status?: string) {
  const rows = await identity.sql(
    `SELECT id, command_type, priority, status, payload FROM registry.satellite_commands WHERE satellite_id = $1 ${
      status ? 'AND status = $2' : ''
    } ORDER BY created_at`,
    status ? [satelliteId(), status] : [satelliteId()],
  );
  return rows as Array<{ id: string; command_type: string; priority: string; status: string; payload: object }>;
}

beforeAll(async () => {
  gateway = identity.replica();
  await gateway.listen({ port: 0, host: '127.0.0.1' });
  const address = gateway.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  backendUrl = `http://127.0.0.1:${address.port}`;

  teamId = (await api('POST', '/api/teams', { slug: 'team-a', name: 'A' })).body.data.id;
  const template = {
    slug: 'fixture',
    name: 'Fixture',
    transport: 'stdio',
    command: process.execPath,
    args: [fixtureStdioServer],
  };
  expect((await api('POST', '/api/mcp/servers', template)).status).toBe(201);
  const created = await api('POST', `/api/teams/${teamId}/mcp/installations`, {
    server_slug: 'fixture',
    name: 'first',
  });
  expect(created.status).toBe(201);
  firstInstallation = created.body.data.id;

  const token = await api('POST', '/api/satellites/registration-tokens', { expires_in_minutes: 60 });
  expect(token.status).toBe(201);
  const config = loadConfig(satelliteEnv, {
    LOG_LEVEL: 'silent',
    // A global satellite on loopback, without client authentication (the oauth branch's rule).
    SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true',
    BACKEND_URL: backendUrl,
    SATELLITE_REGISTRATION_TOKEN: token.body.data.token,
    SATELLITE_STATE_DIR: await tempStateDir(),
    SATELLITE_PUBLIC_URL: 'http://satellite.test:3001',
    REMOTE_HEALTH_INTERVAL_MS: '0',
    PROCESS_IDLE_TIMEOUT_MS: '0',
  });
  scheduler = createManualScheduler(Date.now());
  link = createBackendLink({ config: { ...config, BACKEND_URL: backendUrl }, logger: silentLogger, scheduler });
  satellite = createSatelliteApp({ config, servers: [], events: link.events, logger: silentLogger, link });
  await satellite.start();
  await satellite.app.listen({ port: 0, host: '127.0.0.1' });
  await link.start(satellite.runtime);
  const satelliteAddress = satellite.app.server.address();
  if (!satelliteAddress || typeof satelliteAddress === 'string') throw new Error('no port');
  mcpUrl = new URL(`http://127.0.0.1:${satelliteAddress.port}/mcp`);
  mcp = await connectClient(mcpUrl, 'stack-test');
}, 120000);

afterAll(async () => {
  await mcp?.close();
  await link?.stop();
  await satellite?.close();
});

describe('the satellite linked to the real backend', () => {
  it('registers with a real token, activates with its first heartbeat and runs the configured installation', async () => {
    const view = await api('GET', `/api/satellites/${satelliteId()}`);
    expect(view.body.data).toMatchObject({
      status: 'active',
      satellite_type: 'global',
      satellite_url: 'http://satellite.test:3001',
    });
    const metrics = await api('GET', `/api/satellites/${satelliteId()}/metrics`);
    const beat = metrics.body.data.heartbeats[0];
    expect(beat.memory_total_mb).toBeGreaterThan(0);
    expect(beat.disk_total_mb).toBeGreaterThan(0);
    expect(beat.network_status).toBe('online');
    // Configuration fetched at start: the team's installation runs here.
    expect(satellite.runtime.configuration(firstInstallation)).toMatchObject({ team_id: teamId, transport: 'stdio' });
    await vi.waitFor(() => expect(satellite.runtime.server(firstInstallation)?.status()).toBe('online'), {
      timeout: 20000,
    });
    // Its events reach JetStream and the installations service, which moves the status to online.
    await sendEvents();
    await vi.waitFor(async () => expect(await installationStatus(firstInstallation)).toBe('online'), {
      timeout: 10000,
      interval: 50,
    });
    expect(link.events.stats()).toMatchObject({ totalFailed: 0, totalDropped: 0 });
  });

  it('reports tool executions as request logs, with the response only once request logging is on', async () => {
    const call = async (text: string) =>
      textOf(
        (await mcp.callTool({
          name: 'execute_mcp_tool',
          arguments: { tool_path: 'first:echo', arguments: { text } },
        })) as never,
      );
    expect(await call('without response')).toContain('without response');
    await sendEvents();
    const requests = `/api/teams/${teamId}/mcp/installations/${firstInstallation}/requests`;
    await vi.waitFor(async () => expect((await api('GET', requests)).body.data.total).toBe(1), {
      timeout: 10000,
      interval: 50,
    });
    const logged = (await api('GET', requests)).body.data.items[0];
    expect(logged).toMatchObject({ tool_name: 'echo', success: true });
    expect(logged.tool_response ?? null).toBeNull();

    // Turning request logging on queues a configure command, answered by the next poll; applying it
    // needs no restart.
    const pid = satellite.runtime.server(firstInstallation)?.snapshot().process_id;
    expect(
      (
        await api('PATCH', `/api/teams/${teamId}/mcp/installations/${firstInstallation}/settings`, {
          request_logging_enabled: true,
        })
      ).status,
    ).toBe(200);
    // Another configure command may have taken the held poll first (the first tool listing, approved as
    // the installation's pinned definitions, sends one): the satellite polls again, as its schedule would.
    await vi.waitFor(
      async () => {
        if (!satellite.runtime.configuration(firstInstallation)?.settings.request_logging_enabled) await link.poll();
        expect(satellite.runtime.configuration(firstInstallation)?.settings.request_logging_enabled).toBe(true);
      },
      { timeout: 10000 },
    );
    expect(satellite.runtime.server(firstInstallation)?.snapshot().process_id).toBe(pid);

    expect(await call('with response')).toContain('with response');
    await sendEvents();
    await vi.waitFor(async () => expect((await api('GET', requests)).body.data.total).toBe(2), {
      timeout: 10000,
      interval: 50,
    });
    const withResponse = (await api('GET', requests)).body.data.items[0];
    expect(JSON.stringify(withResponse.tool_response)).toContain('with response');
  });

  it('lists a 2026-07-28 client, which opens no session, among the recent clients with its name, state and calls', async () => {
    const modern = new Client(
      { name: 'agent-2026', version: '3.1.4' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(new StreamableHTTPClientTransport(mcpUrl));
    expect(modern.getProtocolEra()).toBe('modern');
    for (const text of ['one', 'two']) {
      const result = await modern.callTool({
        name: 'execute_mcp_tool',
        arguments: { tool_path: 'first:echo', arguments: { text } },
      });
      expect(textOf(result as never)).toContain(text);
    }
    // Discovery is not a tool call of the client's count.
    await modern.callTool({ name: 'discover_mcp_tools', arguments: { query: 'echo' } });
    await modern.close();
    // The sweep (every SESSION_SWEEP_INTERVAL_MS) reports the calls made since the last report.
    satellite.clients.sweep();
    await sendEvents();
    const listed = async () =>
      ((await api('GET', '/api/users/me/mcp/client-activity')).body.data.items as Array<Record<string, unknown>>).find(
        (c) => c.client_name === 'agent-2026',
      );
    await vi.waitFor(async () => expect((await listed())?.tool_execution_count).toBe(2), {
      timeout: 10000,
      interval: 50,
    });
    expect(await listed()).toMatchObject({
      satellite_id: satelliteId(),
      client_version: '3.1.4',
      transport: 'stateless',
      active: true,
      disconnected_at: null,
    });
    // Once the satellite stops following it (here its shutdown, otherwise its idle timeout), it has left.
    satellite.clients.closeAll();
    await sendEvents();
    await vi.waitFor(async () => expect((await listed())?.active).toBe(false), { timeout: 10000, interval: 50 });
    expect(await listed()).toMatchObject({ tool_execution_count: 2, disconnect_reason: 'error' });
  });

  it('applies an immediate configure command at the next poll, 2 seconds after the previous one', async () => {
    // The installation exists in the backend before the satellite hears of it.
    const created = await api('POST', `/api/teams/${teamId}/mcp/installations`, {
      server_slug: 'fixture',
      name: 'second',
    });
    const second = created.body.data.id as string;
    await vi.waitFor(
      async () =>
        expect(
          (await commandsOf('pending')).some(
            (c) => c.command_type === 'configure' && JSON.stringify(c.payload).includes(second),
          ),
        ).toBe(true),
      { timeout: 10000 },
    );
    // Something urgent puts the satellite in immediate mode (2 s).
    await identity.stack.gateways[0]?.bus.request(
      registrySubjects.createCommand,
      {
        satellite_id: satelliteId(),
        command_type: 'health_check',
        priority: 'immediate',
        payload: { team_id: teamId, installation_id: firstInstallation, check_type: 'process' },
      } as never,
      { identity: serviceIdentity('installations') },
    );
    await link.poll();
    expect(link.status().polling).toMatchObject({ mode: 'immediate', interval_ms: 2000 });
    expect(satellite.runtime.configuration(second)).toBeDefined();
    const healthCheck = (await commandsOf()).find((c) => c.command_type === 'health_check');
    expect(healthCheck?.status).toBe('completed');

    // An immediate configure queued now is applied within that one 2-second interval.
    await identity.stack.gateways[0]?.bus.request(
      registrySubjects.createCommand,
      {
        satellite_id: satelliteId(),
        command_type: 'configure',
        priority: 'immediate',
        payload: { team_id: teamId, event: 'mcp_recovery', installation_id: second },
      } as never,
      { identity: serviceIdentity('installations') },
    );
    await scheduler.advance(2000);
    const recovery = async () =>
      (await commandsOf()).find((c) => JSON.stringify(c.payload).includes('mcp_recovery'))?.status;
    await vi.waitFor(async () => expect(await recovery()).toBe('completed'), { timeout: 20000 });
    await vi.waitFor(() => expect(satellite.runtime.server(second)?.status()).toBe('online'), { timeout: 20000 });
  });
});
