import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, eventually, type Platform, startPlatform } from './platformHarness.ts';

/**
 * Day one of a platform team, on the real processes (every service, gateway-api, one satellite) and the
 * real PostgreSQL, NATS and Redis: set the database up, log in, configure, make a team and its admin,
 * register a satellite, install @modelcontextprotocol/server-everything, use it from an MCP client,
 * and watch what the platform shows about it. Each step needs the ones before it.
 */
type Envelope<T> = { success: true; data: T };
const everythingScript = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

// Schedules short enough that the walk sees several ticks of each job.
const tickEveryMs = 3000;

describe.each([
  { replicas: 1, nats: 'open' },
  { replicas: 2, nats: 'open' },
  // As npm start and the manifests run it: every process its own NATS user, permissions from the catalogue.
  { replicas: 1, nats: 'authenticated' },
])('a platform team, day one, with $replicas replica(s) of every service, on $nats NATS', ({ replicas, nats }) => {
  let platform: Platform;
  const state: Record<string, string> = {};
  let calls = 0;

  beforeAll(async () => {
    platform = await startPlatform({
      replicas,
      authenticatedNats: nats === 'authenticated',
      env: {
        JOBS_CREDENTIAL_VALIDATION_EVERY_MS: String(tickEveryMs),
        JOBS_TEMPLATE_HEALTH_EVERY_MS: String(tickEveryMs),
        JOBS_LOG_CLEANUP_EVERY_MS: String(tickEveryMs),
      },
    });
  });
  afterAll(async () => {
    await platform?.stop();
  });

  /** The gateways take turns, so with replicas every step also crosses from one gateway to another. */
  const api = <T>(method: string, path: string, options: { token?: string; body?: unknown; expect?: number } = {}) => {
    const base = platform.gateways[calls++ % platform.gateways.length] as string;
    return call<Envelope<T>>(base, method, path, options).then((r) => r?.data as T);
  };

  async function mcpClient(url: string): Promise<Client> {
    // The SDK's auto mode finds the 2026-07-28 revision through server/discover.
    const client = new Client({ name: 'e2e-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    return client;
  }

  /** The satellite's execute_mcp_tool, as an agent calls it: a tool's path and that tool's own arguments. */
  function executeTool(client: Client, toolPath: string, args: Record<string, unknown>) {
    return client.callTool({ name: 'execute_mcp_tool', arguments: { tool_path: toolPath, arguments: args } });
  }

  function textOf(result: unknown): string {
    const content = (result as { content: Array<{ type: string; text: string }> }).content;
    return content.map((c) => c.text).join('');
  }

  /** Reads an SSE stream until an `update` event whose data matches, then closes it. */
  async function waitForStreamUpdate(url: string, token: string, match: (data: unknown) => boolean): Promise<unknown> {
    const controller = new AbortController();
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
    if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (event === 'update' && data && match(JSON.parse(data))) return JSON.parse(data);
          end = buffer.indexOf('\n\n');
        }
      }
    } finally {
      controller.abort();
    }
  }

  it('sets the database up and logs the first admin in', async () => {
    expect(await call(platform.api, 'GET', '/api/db/status')).toEqual({
      configured: true,
      initialized: false,
      dialect: 'postgresql',
    });
    expect(await call(platform.api, 'POST', '/api/db/setup', { body: { type: 'postgresql' } })).toMatchObject({
      restart_required: false,
    });
    const login = await eventually('the first admin to exist', async () =>
      call<Envelope<{ token: string }>>(platform.api, 'POST', '/api/auth/login', { body: platform.admin }),
    );
    state.admin = login.data.token;
  });

  it('reads and writes settings', async () => {
    const groups = await api<Array<{ id: string }>>('GET', '/api/settings/groups', { token: state.admin });
    expect(groups.map((g) => g.id)).toEqual(expect.arrayContaining(['global', 'smtp', 'repohost-oauth']));
    await api('PUT', '/api/settings/smtp.host', { token: state.admin, body: { value: 'mail.example.org' } });
    expect(await api('GET', '/api/settings/smtp.host', { token: state.admin })).toMatchObject({
      value: 'mail.example.org',
    });
  });

  it('creates a team and its admin, who gets a registration token', async () => {
    const team = await api<{ id: string }>('POST', '/api/teams', {
      token: state.admin,
      body: { slug: 'platform', name: 'Platform' },
    });
    state.team = team.id;
    const teamAdmin = { email: 'lead@orbital.test', name: 'Lead', password: 'seven orbits around a quiet moon' };
    await api('POST', '/api/users', { token: state.admin, body: teamAdmin });
    await api('POST', `/api/teams/${team.id}/members`, {
      token: state.admin,
      body: { email: teamAdmin.email, role: 'team_admin' },
    });
    state.lead = (
      await api<{ token: string }>('POST', '/api/auth/login', {
        body: { email: teamAdmin.email, password: teamAdmin.password },
      })
    ).token;
    const token = await api<{ token: string }>('POST', `/api/teams/${team.id}/satellites/registration-tokens`, {
      token: state.lead,
      body: {},
    });
    state.registrationToken = token.token;
  });

  it('registers a satellite with the token; it becomes active on its first heartbeat', async () => {
    const satellite = await platform.startSatellite(state.registrationToken as string);
    state.satelliteUrl = satellite.url;
    const active = await eventually('the satellite to become active', async () => {
      const list = await api<Array<{ id: string; status: string }>>('GET', `/api/teams/${state.team}/satellites`, {
        token: state.lead,
      });
      return list.find((s) => s.status === 'active');
    });
    state.satellite = active.id;
  });

  it('installs server-everything; the satellite spawns it and the installation goes online', async () => {
    await api('POST', '/api/mcp/servers', {
      token: state.admin,
      body: {
        slug: 'everything',
        name: 'Everything',
        description: 'The MCP reference server with every feature',
        transport: 'stdio',
        command: process.execPath,
        args: [everythingScript, 'stdio'],
      },
    });
    const installation = await api<{ id: string }>('POST', `/api/teams/${state.team}/mcp/installations`, {
      token: state.lead,
      body: { server_slug: 'everything', name: 'everything' },
    });
    state.installation = installation.id;
    await eventually('the installation to go online', async () => {
      const status = await api<{ status: string }>(
        'GET',
        `/api/teams/${state.team}/mcp/installations/${installation.id}/status`,
        {
          token: state.lead,
        },
      );
      return status.status === 'online' ? status : undefined;
    });
  });

  it('an MCP client discovers and runs a tool through the satellite; the request shows in the log and on its stream', async () => {
    const path = `/api/teams/${state.team}/mcp/installations/${state.installation}`;
    const streamed = waitForStreamUpdate(`${platform.api}${path}/requests/stream`, state.lead as string, (data) =>
      JSON.stringify(data).includes('echo'),
    );
    const client = await mcpClient(state.satelliteUrl as string);
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual(['discover_mcp_tools', 'execute_mcp_tool']);
      const found = JSON.parse(
        textOf(await client.callTool({ name: 'discover_mcp_tools', arguments: { query: 'echo' } })),
      );
      expect(found.tools.map((t: { tool_path: string }) => t.tool_path)).toContain('everything:echo');
      const ran = await executeTool(client, 'everything:echo', { message: 'hello from day one' });
      expect(textOf(ran)).toContain('hello from day one');
    } finally {
      await client.close();
    }
    expect(await streamed).toBeTruthy();
    const page = await eventually('the request log', async () => {
      const logged = await api<{ items: Array<{ tool_name: string; tool_response?: unknown }> }>(
        'GET',
        `${path}/requests`,
        {
          token: state.lead,
        },
      );
      return logged.items.length > 0 ? logged : undefined;
    });
    expect(page.items[0]).toMatchObject({ tool_name: 'echo' });
    // Request logging is off by default: no response kept.
    expect(page.items[0]?.tool_response).toBeUndefined();
  });

  it('a killed server is restarted, and the restart shows in status and logs', async () => {
    const path = `/api/teams/${state.team}/mcp/installations/${state.installation}`;
    const startsLogged = async () =>
      (
        await api<{ items: Array<{ message: string }> }>('GET', `${path}/logs?limit=100`, { token: state.lead })
      ).items.filter((l) => l.message.includes('Starting default (STDIO) server')).length;
    // The first start's stderr line reached the server log.
    const before = await eventually('the first start to be logged', async () =>
      (await startsLogged()) > 0 ? startsLogged() : undefined,
    );
    const statusBefore = await api<{ status_updated_at: string }>('GET', `${path}/status`, { token: state.lead });
    const pids = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes(everythingScript))
      .map((line) => Number(line.trim().split(/\s+/)[0]));
    expect(pids).toHaveLength(1);
    process.kill(pids[0] as number, 'SIGKILL');
    // Status: it moved (crashed, restarting) and came back online.
    await eventually('the installation to come back online after the crash', async () => {
      const status = await api<{ status: string; status_updated_at: string }>('GET', `${path}/status`, {
        token: state.lead,
      });
      return status.status === 'online' && status.status_updated_at > statusBefore.status_updated_at
        ? status
        : undefined;
    });
    // Logs: the new process's start is in the server log.
    expect(
      await eventually('the restart to be logged', async () =>
        (await startsLogged()) > before ? startsLogged() : undefined,
      ),
    ).toBe(before + 1);
  });

  it('request logging turned on by PATCH shows responses from the next call', async () => {
    const path = `/api/teams/${state.team}/mcp/installations/${state.installation}`;
    await api('PATCH', `${path}/settings`, { token: state.lead, body: { request_logging_enabled: true } });
    // The satellite receives the change through configuration; the next call carries the response.
    await eventually('the response to be kept', async () => {
      const client = await mcpClient(state.satelliteUrl as string);
      try {
        await executeTool(client, 'everything:echo', { message: 'kept this time' });
      } finally {
        await client.close();
      }
      const logged = await api<{ items: Array<{ tool_response?: unknown }> }>('GET', `${path}/requests`, {
        token: state.lead,
      });
      return logged.items.find((i) => JSON.stringify(i.tool_response ?? '').includes('kept this time'));
    });
  });

  it.runIf(nats === 'authenticated')('did all of it within the NATS permissions each process was given', () => {
    const log = platform.natsLog();
    expect(log).toContain('Server is ready');
    expect(log.split('\n').filter((line) => /violation/i.test(line))).toEqual([]);
  });

  it('ran each tick of each job once, whichever replica took it', async () => {
    const ticks = platform
      .logs('jobs')
      .split('\n')
      .filter((line) => line.includes('"msg":"tick done"'))
      .map((line) => JSON.parse(line) as { schedule: string; tick_at: string });
    for (const schedule of ['credential_validation', 'template_health', 'log_cleanup']) {
      const times = ticks.filter((t) => t.schedule === schedule).map((t) => t.tick_at);
      expect(times.length).toBeGreaterThanOrEqual(2);
      expect(new Set(times).size).toBe(times.length);
    }
  });
});
