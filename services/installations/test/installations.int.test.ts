import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { type Bus, listParked } from '@orbital/bus';
import {
  eventFilter,
  installationEventsStream,
  installationLogAppendedEvent,
  installationRequestLoggedEvent,
  installationStatusChangedEvent,
  jobWorkSubjects,
  installationSubjects as s,
} from '@orbital/contracts';
import type { AppError } from '@orbital/errors';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  anonymous,
  eventually,
  jobs,
  otherTeamAdmin,
  refusal,
  teamA,
  teamAdmin,
  teamB,
  teamUser,
} from './installationsHarness.ts';
import { as, useInstallations } from './useInstallations.ts';

const streamName = (bus: Bus, name: string) => (bus.prefix ? `${bus.prefix}_${name}` : name);

const h = useInstallations();

beforeAll(async () => {
  await h.client.request(
    s.createTemplate,
    { slug: 'filesystem', name: 'Filesystem', transport: 'stdio', command: 'npx', args: ['-y', 'fs-server'] },
    as(admin),
  );
});

/**
 * What the service has announced so far on the installation events stream under one event filter: each
 * message's payload, oldest first (a consumer made for the read starts at the stream's beginning).
 */
async function announcedOn(filter: string, maxMessages = 1000): Promise<unknown[]> {
  const consumer = await jetstream(h.client.connection).consumers.get(
    streamName(h.client, installationEventsStream.name),
    { filter_subjects: h.client.subject(filter) },
  );
  const payloads: unknown[] = [];
  for await (const m of await consumer.fetch({ max_messages: maxMessages, expires: 1000 })) {
    payloads.push(m.json());
    if (m.info.pending === 0) break;
  }
  return payloads;
}

/** The requests announced for one installation so far, as [id, tool name], oldest first. */
async function requestsAnnouncedFor(installationId: string): Promise<Array<[string, string]>> {
  const payloads = await announcedOn(eventFilter(installationRequestLoggedEvent, { installation_id: installationId }));
  return payloads.flatMap((payload) =>
    installationRequestLoggedEvent.payload.parse(payload).requests.map((r): [string, string] => [r.id, r.tool_name]),
  );
}

/** A tool call of team A's installation, as a satellite reports it. */
const executed = (installationId: string, toolName = 'read_file') => ({
  installation_id: installationId,
  team_id: teamA,
  server_slug: 'filesystem',
  tool_name: toolName,
  session_id: 's1',
  request_params: { path: '/tmp/x' },
  duration_ms: 3,
  success: true,
  error_message: null,
  executed_at: new Date().toISOString(),
});

async function install(name: string, extra: Record<string, unknown> = {}) {
  return h.client.request(
    s.createInstallation,
    { team_id: teamA, installation: { server_slug: 'filesystem', name, ...extra } },
    as(teamAdmin),
  );
}

describe('templates', () => {
  it('lets global admins write and signed-in users read', async () => {
    const body = { slug: 'remote', name: 'Remote', transport: 'http' as const, url: 'https://mcp.example.com/mcp' };
    expect(await refusal(h.client.request(s.createTemplate, body, as(teamAdmin)))).toBe('forbidden');
    expect(await refusal(h.client.request(s.createTemplate, body, as(anonymous)))).toBe('unauthenticated');
    const created = await h.client.request(s.createTemplate, body, as(admin));
    expect(created).toMatchObject({ slug: 'remote', transport: 'http', health_status: null });
    expect(await refusal(h.client.request(s.createTemplate, body, as(admin)))).toBe('conflict');
    const list = await h.client.request(s.listTemplates, {}, as(teamUser));
    // Beside the reference servers setup adds (server-*), the two made here.
    // The catalogue's own templates (reference servers, vendors' remote servers) aside.
    const added = list.filter((t) => !t.slug.startsWith('server-') && !t.untested).map((t) => t.slug);
    expect(added).toEqual(['filesystem', 'remote']);
    expect(await refusal(h.client.request(s.listTemplates, {}, as(anonymous)))).toBe('unauthenticated');
  });

  it('rejects a template its transport cannot run, before and after an update', async () => {
    const noCommand = { slug: 'broken', name: 'Broken', transport: 'stdio' as const };
    expect(await refusal(h.client.request(s.createTemplate, noCommand, as(admin)))).toBe('validation_failed');
    const change = { slug: 'remote', changes: { transport: 'stdio' as const } };
    expect(await refusal(h.client.request(s.updateTemplate, change, as(admin)))).toBe('validation_failed');
    const renamed = await h.client.request(
      s.updateTemplate,
      { slug: 'remote', changes: { name: 'Remote 2' } },
      as(admin),
    );
    expect(renamed.name).toBe('Remote 2');
    expect(await refusal(h.client.request(s.getTemplate, { slug: 'nope' }, as(teamUser)))).toBe('not_found');
  });

  it.each([
    ['a file URL', 'file:///etc/passwd', 'must be an http or https URL'],
    ['an ftp URL', 'ftp://files.example.com/mcp', 'must be an http or https URL'],
    ['a cloud metadata address', 'http://169.254.169.254/latest/meta-data/', 'is a cloud metadata address'],
    ['a link-local address', 'http://169.254.1.1/mcp', 'is a link-local address'],
    ['an IPv6 link-local address', 'http://[fe80::1]:8080/mcp', 'is a link-local address'],
    ['an IPv4-mapped metadata address', 'http://[::ffff:169.254.169.254]/', 'is a cloud metadata address'],
    ['a cloud metadata host name', 'http://metadata.google.internal/computeMetadata/v1/', 'cloud metadata host name'],
  ])('refuses a template URL that is %s, naming the field', async (_name, url, reason) => {
    const error = await h.client
      .request(s.createTemplate, { slug: 'sneaky', name: 'Sneaky', transport: 'http', url }, as(admin))
      .catch((e: AppError) => e);
    expect(error).toMatchObject({ code: 'validation_failed' });
    expect(JSON.stringify((error as AppError).details)).toContain(reason);
    expect(JSON.stringify((error as AppError).details)).toContain('url');
    expect(await refusal(h.client.request(s.getTemplate, { slug: 'sneaky' }, as(admin)))).toBe('not_found');
  });

  it('accepts private, loopback and operator-allowed addresses, and checks a changed URL too', async () => {
    for (const [slug, url] of [
      ['internal', 'http://10.20.30.40:8080/mcp'],
      ['on-host', 'http://127.0.0.1:9000/mcp'],
      ['allowed-link-local', 'http://169.254.100.7/mcp'],
    ]) {
      const created = await h.client.request(
        s.createTemplate,
        { slug: slug as string, name: slug as string, transport: 'http', url },
        as(admin),
      );
      expect(created.url).toBe(url);
    }
    const error = await h.client
      .request(s.updateTemplate, { slug: 'internal', changes: { url: 'http://169.254.169.254/' } }, as(admin))
      .catch((e: AppError) => e);
    expect(error).toMatchObject({ code: 'validation_failed', details: [{ path: 'changes.url' }] });
    expect((await h.client.request(s.getTemplate, { slug: 'internal' }, as(admin))).url).toBe(
      'http://10.20.30.40:8080/mcp',
    );
    for (const slug of ['internal', 'on-host', 'allowed-link-local']) {
      await h.client.request(s.deleteTemplate, { slug }, as(admin));
    }
  });

  it('refuses to delete a template that teams have installed', async () => {
    await install('fs-for-delete-check');
    expect(await refusal(h.client.request(s.deleteTemplate, { slug: 'filesystem' }, as(admin)))).toBe('conflict');
    expect(await h.client.request(s.deleteTemplate, { slug: 'remote' }, as(admin))).toEqual({ deleted: true });
  });
});

describe('installations', () => {
  it('creates as team admin only, encrypts secrets at rest and queues configure for the team', async () => {
    const secret = `sk-${randomUUID()}`;
    const body = { server_slug: 'filesystem', name: 'fs-main', env: { API_KEY: secret }, headers: {} };
    expect(
      await refusal(h.client.request(s.createInstallation, { team_id: teamA, installation: body }, as(teamUser))),
    ).toBe('forbidden');
    expect(
      await refusal(h.client.request(s.createInstallation, { team_id: teamA, installation: body }, as(otherTeamAdmin))),
    ).toBe('forbidden');
    const before = h.commands.length;
    const created = await h.client.request(s.createInstallation, { team_id: teamA, installation: body }, as(teamAdmin));
    expect(created).toMatchObject({
      name: 'fs-main',
      status: 'provisioning',
      env_keys: ['API_KEY'],
      server_slug: 'filesystem',
    });
    expect(JSON.stringify(created)).not.toContain(secret);
    const [row] = await h.sql<{ secret_config: string }>(
      'SELECT secret_config FROM installations.mcp_installations WHERE id = $1',
      [created.id],
    );
    expect(row?.secret_config).toMatch(/^v1:/);
    expect(row?.secret_config).not.toContain(secret);
    expect(h.commands.slice(before)).toEqual([
      expect.objectContaining({
        command_type: 'configure',
        payload: { team_id: teamA, event: 'mcp_installation_created', installation_id: created.id },
      }),
    ]);
    expect(
      await refusal(h.client.request(s.createInstallation, { team_id: teamA, installation: body }, as(teamAdmin))),
    ).toBe('conflict');
  });

  it('refuses a header value with a line break and an environment value with NUL, without echoing them', async () => {
    await h.client.request(
      s.createTemplate,
      { slug: 'headered', name: 'Headered', transport: 'http', url: 'http://127.0.0.1:9/mcp' },
      as(admin),
    );
    const secret = `sk-${randomUUID()}`;
    for (const [installation, path] of [
      [{ server_slug: 'headered', name: 'headered', headers: { 'X-Api-Key': `${secret}\r\nX-Other: 1` } }, 'headers'],
      [{ server_slug: 'filesystem', name: 'fs-nul', env: { API_KEY: `${secret}\u0000` } }, 'env'],
    ] as const) {
      const error = await h.client
        .request(s.createInstallation, { team_id: teamA, installation }, as(teamAdmin))
        .catch((e: AppError) => e);
      expect(error).toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ path: expect.stringContaining(path) })],
      });
      expect(JSON.stringify(error)).not.toContain(secret);
    }
  });

  it('refuses headers the MCP transport sets itself, in any case, naming the header; Authorization is allowed', async () => {
    await h.client.request(
      s.createTemplate,
      { slug: 'transport-headers', name: 'Transport headers', transport: 'http', url: 'http://127.0.0.1:9/mcp' },
      as(admin),
    );
    for (const name of [
      'Content-Type',
      'mcp-session-id',
      'MCP-Protocol-Version',
      'Mcp-Method',
      'HOST',
      'Transfer-Encoding',
    ]) {
      const error = await h.client
        .request(
          s.createInstallation,
          {
            team_id: teamA,
            installation: {
              server_slug: 'transport-headers',
              name: 'owned-header',
              headers: { 'X-Api-Key': 'k', [name]: 'v' },
            },
          },
          as(teamAdmin),
        )
        .catch((e: AppError) => e);
      expect(error, name).toMatchObject({
        code: 'validation_failed',
        details: [
          expect.objectContaining({
            path: expect.stringContaining(`headers.${name}`),
            message: expect.stringContaining('MCP transport sets itself'),
          }),
        ],
      });
    }
    const created = await h.client.request(
      s.createInstallation,
      {
        team_id: teamA,
        installation: {
          server_slug: 'transport-headers',
          name: 'static-credential',
          headers: { Authorization: 'Bearer static', 'X-Content-Type-Hint': 'json' },
        },
      },
      as(teamAdmin),
    );
    expect(created.name).toBe('static-credential');
    // An update is held to the same rule.
    const error = await h.client
      .request(
        s.updateInstallation,
        { team_id: teamA, installation_id: created.id, changes: { headers: { Accept: 'text/plain' } } },
        as(teamAdmin),
      )
      .catch((e: AppError) => e);
    expect(error).toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ path: expect.stringContaining('headers.Accept') })],
    });
  });

  it('shows a team its own installations only', async () => {
    const list = await h.client.request(s.listInstallations, { team_id: teamA }, as(teamUser));
    expect(list.map((i) => i.name)).toContain('fs-main');
    expect(await refusal(h.client.request(s.listInstallations, { team_id: teamA }, as(otherTeamAdmin)))).toBe(
      'forbidden',
    );
    const fsMain = list.find((i) => i.name === 'fs-main');
    if (!fsMain) throw new Error('missing');
    // The installation id of another team is not found through this team.
    expect(
      await refusal(h.client.request(s.getStatus, { team_id: randomUUID(), installation_id: fsMain.id }, as(admin))),
    ).toBe('not_found');
  });

  it('keeps commands while the registry is down and delivers them once it is back', async () => {
    h.registryDown(true);
    const before = h.commands.length;
    const created = await install('fs-outbox');
    expect(h.commands.length).toBe(before);
    h.registryDown(false);
    await eventually(async () => h.commands.some((c) => c.payload.installation_id === created.id));
  });

  it('updates and deletes as team admin, each queueing configure; an update starts over from provisioning', async () => {
    const created = await install('fs-update');
    await h.sql("UPDATE installations.mcp_installations SET status = 'permanently_failed' WHERE id = $1", [created.id]);
    const ref = { team_id: teamA, installation_id: created.id };
    expect(
      await refusal(h.client.request(s.updateInstallation, { ...ref, changes: { args: ['x'] } }, as(teamUser))),
    ).toBe('forbidden');
    const updated = await h.client.request(
      s.updateInstallation,
      { ...ref, changes: { args: ['--root', '/data'], env: { TOKEN: 'new-secret' } } },
      as(teamAdmin),
    );
    expect(updated).toMatchObject({ args: ['--root', '/data'], env_keys: ['TOKEN'], status: 'provisioning' });
    expect(await h.client.request(s.deleteInstallation, ref, as(teamAdmin))).toEqual({ deleted: true });
    const events = h.commands.filter((c) => c.payload.installation_id === created.id).map((c) => c.payload.event);
    expect(events).toEqual(['mcp_installation_created', 'mcp_installation_updated', 'mcp_installation_deleted']);
    expect(await refusal(h.client.request(s.getInstallation, ref, as(teamAdmin)))).toBe('not_found');
  });

  it('lets a member set only their own user level', async () => {
    const created = await install('fs-user-level');
    const ref = { team_id: teamA, installation_id: created.id };
    const mine = await h.client.request(
      s.putUserConfig,
      { ...ref, config: { args: ['--me'], env: { MY_TOKEN: 'personal' } } },
      as(teamUser),
    );
    expect(mine).toMatchObject({ user_id: 'u-team-user', args: ['--me'], env_keys: ['MY_TOKEN'] });
    expect(await refusal(h.client.request(s.putUserConfig, { ...ref, config: {} }, as(otherTeamAdmin)))).toBe(
      'forbidden',
    );
  });
});

describe('status, logs and requests from satellite events', () => {
  it('walks provisioning -> discovering_tools -> online and publishes every change', async () => {
    const created = await install('fs-status');
    const ref = { team_id: teamA, installation_id: created.id };
    const serverRef = {
      server_id: created.id,
      server_slug: 'fs-status',
      installation_name: 'fs-status',
      team_id: teamA,
    };
    await h.emit('mcp.server.started', {
      ...serverRef,
      process_id: 42,
      transport: 'stdio',
      tool_count: 0,
      spawn_duration_ms: 120,
    });
    await eventually(
      async () => (await h.client.request(s.getStatus, ref, as(teamUser))).status === 'discovering_tools',
    );
    await h.emit('mcp.tools.discovered', {
      installation_id: created.id,
      installation_name: 'fs-status',
      team_id: teamA,
      server_slug: 'filesystem',
      tool_count: 1,
      total_tokens: 40,
      tools: [
        { tool_name: 'read_file', description: 'Reads a file', input_schema: { type: 'object' }, token_count: 40 },
      ],
      discovered_at: new Date().toISOString(),
    });
    const online = await eventually(async () => {
      const status = await h.client.request(s.getStatus, ref, as(teamUser));
      return status.status === 'online' ? status : undefined;
    });
    expect(online.available).toBe(true);
    const tools = await h.sql(
      'SELECT tool_name, token_count FROM installations.tool_metadata WHERE installation_id = $1',
      [created.id],
    );
    expect(tools).toEqual([{ tool_name: 'read_file', token_count: 40 }]);

    // Credential validation from any status, then an offline server's recovery step by step.
    const report = (status: string, reason: string) =>
      h.emit('mcp.server.status_changed', {
        ...serverRef,
        status: status as 'online',
        previous_status: null,
        status_message: null,
        reason: reason as 'recovery',
        changed_at: new Date().toISOString(),
      });
    await report('requires_reauth', 'credential_validation');
    await eventually(async () => (await h.client.request(s.getStatus, ref, as(teamUser))).status === 'requires_reauth');
    await report('offline', 'configuration');
    await eventually(async () => (await h.client.request(s.getStatus, ref, as(teamUser))).status === 'offline');
    await h.emit('mcp.tool.executed', {
      installation_id: created.id,
      team_id: teamA,
      server_slug: 'filesystem',
      tool_name: 'read_file',
      session_id: null,
      request_params: { path: '/x' },
      duration_ms: 12,
      success: true,
      error_message: null,
      executed_at: new Date().toISOString(),
    });
    await eventually(async () => (await h.client.request(s.getStatus, ref, as(teamUser))).status === 'connecting');
    await report('discovering_tools', 'recovery');
    await report('online', 'recovery');
    const recovered = await eventually(async () => {
      const status = await h.client.request(s.getStatus, ref, as(teamUser));
      return status.status === 'online' ? status : undefined;
    });
    expect(recovered.last_credential_check_at).not.toBeNull();

    // Every change reached JetStream on the team's status subjects, in order. The outbox publishes after
    // the database commits, so the last announcement may trail the status read above: wait for all of them.
    const announced = async () => {
      const statuses: string[] = [];
      for (const payload of await announcedOn(eventFilter(installationStatusChangedEvent, { team_id: teamA }))) {
        const event = installationStatusChangedEvent.payload.parse(payload);
        if (event.installation_id === created.id) statuses.push(event.status);
      }
      return statuses;
    };
    const seen = await eventually(async () => {
      const statuses = await announced();
      return statuses.length >= 8 ? statuses : undefined;
    });
    expect(seen).toEqual([
      'provisioning',
      'discovering_tools',
      'online',
      'requires_reauth',
      'offline',
      'connecting',
      'discovering_tools',
      'online',
    ]);
  });

  it('restarts, fails permanently, and ignores events older than the last change', async () => {
    const created = await install('fs-crash');
    const ref = { team_id: teamA, installation_id: created.id };
    const serverRef = { server_id: created.id, server_slug: 'fs-crash', installation_name: 'fs-crash', team_id: teamA };
    const t0 = Date.now();
    await h.emit(
      'mcp.server.crashed',
      {
        ...serverRef,
        process_id: 7,
        exit_code: 1,
        signal: null,
        uptime_seconds: 3,
        crash_count: 1,
        will_restart: true,
      },
      { timestamp: new Date(t0).toISOString() },
    );
    await eventually(async () => (await h.client.request(s.getStatus, ref, as(teamUser))).status === 'restarting');
    await h.emit(
      'mcp.server.permanently_failed',
      { ...serverRef, total_crashes: 3, last_error: 'ENOENT', failed_at: new Date(t0 + 2000).toISOString() },
      { timestamp: new Date(t0 + 2000).toISOString() },
    );
    const failed = await eventually(async () => {
      const status = await h.client.request(s.getStatus, ref, as(teamUser));
      return status.status === 'permanently_failed' ? status : undefined;
    });
    expect(failed).toMatchObject({ status_message: 'ENOENT', available: false });
    // A late restart event from before the failure changes nothing.
    await h.emit(
      'mcp.server.restarted',
      { ...serverRef, old_process_id: 7, new_process_id: 8, restart_reason: 'crash', attempt_number: 1 },
      { timestamp: new Date(t0 + 1000).toISOString() },
    );
    const marker = await install('fs-crash-marker');
    await h.emit('mcp.server.dormant', {
      server_id: marker.id,
      server_slug: 'm',
      installation_name: 'm',
      team_id: teamA,
      process_id: 1,
      idle_duration_seconds: 1,
      last_activity_at: new Date().toISOString(),
    });
    // Events are handled in order: once a later event is handled, the stale one was too.
    await eventually(async () => {
      const rows = await h.sql(
        "SELECT 1 FROM installations.mcp_installations WHERE id = $1 AND status = 'provisioning'",
        [marker.id],
      );
      return rows.length === 1;
    });
    expect((await h.client.request(s.getStatus, ref, as(teamUser))).status).toBe('permanently_failed');
  });

  it('stores stderr batches and pages them newest first, with a level filter', async () => {
    const created = await install('fs-logs');
    const ref = { team_id: teamA, installation_id: created.id };
    const now = Date.now();
    const lines = Array.from({ length: 30 }, (_, i) => ({
      log_level: (i % 3 === 0 ? 'error' : 'info') as 'info',
      message: `line ${i}`,
      timestamp: new Date(now + i).toISOString(),
    }));
    const eventId = await h.emit('mcp.server.logs', {
      installation_id: created.id,
      team_id: teamA,
      server_slug: 'filesystem',
      lines,
    });
    // Delivered twice (a retry after a lost acknowledgement): stored once.
    await h.emit(
      'mcp.server.logs',
      { installation_id: created.id, team_id: teamA, server_slug: 'filesystem', lines },
      {
        id: eventId,
      },
    );
    const page = await eventually(async () => {
      const result = await h.client.request(s.listLogs, { ...ref, query: { limit: 10, offset: 5 } }, as(teamUser));
      return result.total === 30 && result.items.length === 10 ? result : undefined;
    });
    expect(page.items.map((l) => l.message)).toEqual(Array.from({ length: 10 }, (_, i) => `line ${24 - i}`));
    expect(page).toMatchObject({ limit: 10, offset: 5 });
    const errors = await h.client.request(s.listLogs, { ...ref, query: { level: 'error' } }, as(teamUser));
    expect(errors.total).toBe(10);
    expect(errors.items.every((l) => l.log_level === 'error')).toBe(true);
    expect(await refusal(h.client.request(s.listLogs, { ...ref, query: {} }, as(otherTeamAdmin)))).toBe('forbidden');
    expect(await refusal(h.client.request(s.listLogs, { ...ref, query: { limit: 0 } } as never, as(teamUser)))).toBe(
      'validation_failed',
    );
  });

  it('stores a burst of events in batches: each once, a bad one parked alone, one status change', async () => {
    const created = await install('fs-burst');
    await h.sql("UPDATE installations.mcp_installations SET status = 'offline' WHERE id = $1", [created.id]);
    const ids = Array.from({ length: 200 }, () => randomUUID());
    await Promise.all([
      ...ids.map((id) => h.emit('mcp.tool.executed', executed(created.id), { id })),
      // The same events again under other message ids (a retry past JetStream's duplicate window).
      ...ids.slice(0, 20).map((id) => h.emit('mcp.tool.executed', executed(created.id), { id, msgId: randomUUID() })),
      h.emit('mcp.tool.executed', { installation_id: created.id, team_id: teamA } as never),
      h.emit('mcp.tool.executed', executed(randomUUID())),
    ]);
    const stored = await eventually(async () => {
      const [row] = await h.sql<{ total: number; distinct: number }>(
        'SELECT count(*)::int AS total, count(DISTINCT id)::int AS distinct FROM installations.request_logs WHERE installation_id = $1',
        [created.id],
      );
      return row && row.total >= 200 ? row : undefined;
    }, 30000);
    expect(stored).toEqual({ total: 200, distinct: 200 });
    // Announced to the requests stream: every stored row, rows stored together in one message.
    const announced = await eventually(async () => {
      const sizes: number[] = [];
      const seen = new Set<string>();
      for (const payload of await announcedOn(
        eventFilter(installationRequestLoggedEvent, { installation_id: created.id }),
      )) {
        const logged = installationRequestLoggedEvent.payload.parse(payload);
        sizes.push(logged.requests.length);
        for (const row of logged.requests) seen.add(row.id);
      }
      return seen.size === 200 ? { seen, sizes } : undefined;
    });
    expect([...announced.seen].sort()).toEqual([...ids].sort());
    expect(Math.max(...announced.sizes)).toBeGreaterThan(1);
    const status = await h.client.request(s.getStatus, { team_id: teamA, installation_id: created.id }, as(teamUser));
    expect(status.status).toBe('connecting');
    const parked = await eventually(async () => {
      const found = (await listParked(h.client, { durable: 'installations_satellite_events' })).filter(
        (p) => (p.payload as { data?: { installation_id?: string } }).data?.installation_id === created.id,
      );
      return found.length > 0 ? found : undefined;
    });
    expect(parked).toHaveLength(1);
  });

  describe('batches of events, as gateway-api stores them', () => {
    const storedOf = async (installationId: string) => {
      const [row] = await h.sql<{ total: number; distinct: number }>(
        'SELECT count(*)::int AS total, count(DISTINCT id)::int AS distinct FROM installations.request_logs WHERE installation_id = $1',
        [installationId],
      );
      return row ?? { total: 0, distinct: 0 };
    };
    const parkedOf = async (installationId: string) =>
      (await listParked(h.client, { durable: 'installations_satellite_event_batches' })).filter((p) =>
        JSON.stringify(p.payload).includes(installationId),
      );
    /** Once at least `total` of the installation's request logs are stored. */
    const storedAtLeast = (installationId: string, total: number) =>
      eventually(async () => {
        const row = await storedOf(installationId);
        return row.total >= total ? row : undefined;
      });
    /** Once something of the installation is parked. */
    const parkedSoon = (installationId: string) =>
      eventually(async () => {
        const found = await parkedOf(installationId);
        return found.length > 0 ? found : undefined;
      });

    it('parks an event that breaks its contract alone and stores the rest of its batch', async () => {
      const created = await install('fs-batch-broken');
      const data: unknown[] = Array.from({ length: 30 }, () => executed(created.id));
      data.splice(12, 0, { installation_id: created.id, team_id: teamA });
      const ids = await h.emitBatch('mcp.tool.executed', data);

      const stored = await storedAtLeast(created.id, 30);
      expect(stored).toEqual({ total: 30, distinct: 30 });
      const parked = await parkedSoon(created.id);
      expect(parked).toHaveLength(1);
      // Parked as a batch of one on the batch's own subject, so a replay goes where the original went.
      expect(parked[0]?.subject).toMatch(/\.batch\.mcp\.tool\.executed$/);
      expect(parked[0]?.payload).toEqual({ events: [expect.objectContaining({ id: ids[12] })] });
      expect(parked[0]?.reason).toContain('event 12');
    });

    it("ignores events that name another team's installation, whichever way they come", async () => {
      const target = await install('fs-foreign-target');
      const marker = await install('fs-foreign-marker');
      const foreign = <T extends object>(data: T): T => ({ ...data, team_id: teamB });
      const serverRef = (id: string, name: string) => ({
        server_id: id,
        server_slug: 'filesystem',
        installation_name: name,
        team_id: teamA,
      });
      const started = { process_id: 42, transport: 'stdio' as const, tool_count: 0, spawn_duration_ms: 5 };
      const line = { log_level: 'info' as const, message: 'not yours', timestamp: new Date().toISOString() };
      // Batches as gateway-api stores them, then a batch of the team's own as a marker on the same consumer.
      await h.emitBatch('mcp.tool.executed', [foreign(executed(target.id)), foreign(executed(target.id))]);
      await h.emitBatch('mcp.server.logs', [
        foreign({ installation_id: target.id, server_slug: 'filesystem', lines: [line] }),
      ]);
      await h.emitBatch('mcp.server.started', [foreign({ ...serverRef(target.id, 'fs-foreign-target'), ...started })]);
      await h.emitBatch('mcp.tool.executed', [executed(marker.id)]);
      // Single events, as an older gateway-api stored them, then the marker's own start.
      await h.emit('mcp.tool.executed', foreign(executed(target.id)));
      await h.emit('mcp.server.started', foreign({ ...serverRef(target.id, 'fs-foreign-target'), ...started }));
      await h.emit('mcp.server.started', { ...serverRef(marker.id, 'fs-foreign-marker'), ...started });

      await storedAtLeast(marker.id, 1);
      await eventually(
        async () =>
          (await h.client.request(s.getStatus, { team_id: teamA, installation_id: marker.id }, as(teamUser))).status ===
          'discovering_tools',
      );
      expect(await storedOf(target.id)).toEqual({ total: 0, distinct: 0 });
      const [logs] = await h.sql<{ total: number }>(
        'SELECT count(*)::int AS total FROM installations.server_logs WHERE installation_id = $1',
        [target.id],
      );
      expect(logs?.total).toBe(0);
      const status = await h.client.request(s.getStatus, { team_id: teamA, installation_id: target.id }, as(teamUser));
      expect(status.status).toBe('provisioning');
    });

    it('stores a batch delivered twice once', async () => {
      const created = await install('fs-batch-twice');
      const data = Array.from({ length: 50 }, () => executed(created.id));
      const ids = await h.emitBatch('mcp.tool.executed', data);
      // The same events again under another message id: past the duplicate window, or cut differently.
      await h.emitBatch('mcp.tool.executed', data, { ids });
      await h.emitBatch('mcp.tool.executed', data.slice(0, 10), { ids: ids.slice(0, 10) });
      const marker = await h.emitBatch('mcp.tool.executed', [executed(created.id)]);

      await eventually(async () => {
        const rows = await h.sql('SELECT 1 FROM installations.request_logs WHERE id = $1', [marker[0]]);
        return rows.length === 1;
      });
      expect(await storedOf(created.id)).toEqual({ total: 51, distinct: 51 });
      expect(await parkedOf(created.id)).toHaveLength(0);
    });

    it('announces the time of a call as it is stored, in UTC, whatever form the satellite wrote it in', async () => {
      const created = await install('fs-batch-times');
      const times = ['2026-01-02T03:04:05.678Z', '2026-01-02T03:04:05+02:00', '2026-01-02T03:04:05.123456Z'];
      const ids = await h.emitBatch(
        'mcp.tool.executed',
        times.map((executedAt) => ({ ...executed(created.id), executed_at: executedAt })),
      );
      const announced = await eventually(async () => {
        const payloads = await announcedOn(
          eventFilter(installationRequestLoggedEvent, { installation_id: created.id }),
        );
        const requests = payloads.flatMap((p) => installationRequestLoggedEvent.payload.parse(p).requests);
        return requests.length === 3 ? requests : undefined;
      });
      const stored = await h.sql<{ id: string; at: string }>(
        `SELECT id, to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
         FROM installations.request_logs WHERE installation_id = $1`,
        [created.id],
      );
      const byId = new Map(announced.map((r) => [r.id, r.timestamp]));
      expect(ids.map((id) => byId.get(id))).toEqual([
        '2026-01-02T03:04:05.678Z',
        '2026-01-02T01:04:05.000Z',
        '2026-01-02T03:04:05.123Z',
      ]);
      expect(new Map(stored.map((r) => [r.id, r.at]))).toEqual(byId);
    });

    it('announces events delivered again, some or all of them stored already, as they were first stored', async () => {
      const created = await install('fs-batch-again');
      const first = Array.from({ length: 5 }, () => randomUUID());
      await h.emitBatch(
        'mcp.tool.executed',
        first.map(() => executed(created.id, 'first_tool')),
        { ids: first },
      );
      await eventually(async () => ((await requestsAnnouncedFor(created.id)).length === 5 ? true : undefined));
      // Three stored already and two new, then two that are all stored already, each with other content.
      const fresh = [randomUUID(), randomUUID()];
      const mixed = [...first.slice(0, 3), ...fresh];
      await h.emitBatch(
        'mcp.tool.executed',
        mixed.map(() => executed(created.id, 'second_tool')),
        { ids: mixed },
      );
      const again = first.slice(3);
      await h.emitBatch(
        'mcp.tool.executed',
        again.map(() => executed(created.id, 'third_tool')),
        { ids: again },
      );
      const announced = await eventually(async () => {
        const seen = await requestsAnnouncedFor(created.id);
        return seen.length >= 12 ? seen : undefined;
      });
      const expected: Array<[string, string]> = [
        ...first.map((id): [string, string] => [id, 'first_tool']),
        ...first.slice(0, 3).map((id): [string, string] => [id, 'first_tool']),
        ...fresh.map((id): [string, string] => [id, 'second_tool']),
        ...again.map((id): [string, string] => [id, 'first_tool']),
      ];
      expect(announced.sort()).toEqual(expected.sort());
      expect(await storedOf(created.id)).toEqual({ total: 7, distinct: 7 });
    });

    it('announces the requests of events whose ids are written in capitals', async () => {
      const created = await install('fs-batch-capitals');
      const ids = Array.from({ length: 5 }, () => randomUUID().toUpperCase());
      await h.emitBatch(
        'mcp.tool.executed',
        ids.map(() => executed(created.id)),
        { ids },
      );
      const announced = await eventually(async () => {
        const seen = (await requestsAnnouncedFor(created.id)).map(([id]) => id);
        return seen.length === ids.length ? seen : undefined;
      });
      expect(announced.sort()).toEqual(ids.map((id) => id.toLowerCase()).sort());
    });

    it('stores and announces an event id repeated within one batch once, as it came first', async () => {
      const created = await install('fs-batch-repeated-id');
      const repeated = randomUUID();
      const ids = [repeated, randomUUID(), repeated];
      await h.emitBatch(
        'mcp.tool.executed',
        [executed(created.id, 'first_tool'), executed(created.id, 'other_tool'), executed(created.id, 'second_tool')],
        { ids },
      );
      const announced = await eventually(async () => {
        const seen = await requestsAnnouncedFor(created.id);
        return seen.length >= 2 ? seen : undefined;
      });
      expect(announced.sort()).toEqual(
        [
          [repeated, 'first_tool'],
          [ids[1] as string, 'other_tool'],
        ].sort(),
      );
      const stored = await h.sql('SELECT tool_name FROM installations.request_logs WHERE id = $1', [repeated]);
      expect(stored).toEqual([{ tool_name: 'first_tool' }]);
    });

    it('announces the requests and log lines of events naming their installation in capitals, under its id', async () => {
      const created = await install('fs-batch-installation-capitals');
      const written = created.id.toUpperCase();
      const [call] = await h.emitBatch('mcp.tool.executed', [executed(written)]);
      await h.emitBatch('mcp.server.logs', [
        {
          installation_id: written,
          team_id: teamA,
          server_slug: 'filesystem',
          lines: [{ log_level: 'info', message: 'hello', timestamp: new Date().toISOString() }],
        },
      ]);
      const announced = async (filter: string) => eventually(async () => (await announcedOn(filter, 1))[0]);
      expect(
        await announced(eventFilter(installationRequestLoggedEvent, { installation_id: created.id })),
      ).toMatchObject({ installation_id: created.id, team_id: teamA, requests: [{ id: call }] });
      expect(await announced(eventFilter(installationLogAppendedEvent, { installation_id: created.id }))).toMatchObject(
        { installation_id: created.id, team_id: teamA, lines: [{ message: 'hello' }] },
      );
    });

    it('announces the log lines of events whose ids are written in capitals', async () => {
      const created = await install('fs-logs-capitals');
      const [id] = await h.emitBatch(
        'mcp.server.logs',
        [
          {
            installation_id: created.id,
            team_id: teamA,
            server_slug: 'filesystem',
            lines: [{ log_level: 'info', message: 'capital', timestamp: new Date().toISOString() }],
          },
        ],
        { ids: [randomUUID().toUpperCase()] },
      );
      const appended = await eventually(
        async () =>
          (await announcedOn(eventFilter(installationLogAppendedEvent, { installation_id: created.id }), 1))[0],
      );
      expect(appended).toMatchObject({ installation_id: created.id, lines: [{ message: 'capital' }] });
      const [stored] = await h.sql<{ event_id: string }>(
        'SELECT event_id::text FROM installations.server_logs WHERE installation_id = $1',
        [created.id],
      );
      expect(stored?.event_id).toBe(id?.toLowerCase());
    });

    it('parks only the event PostgreSQL refuses when a batch fails, and stores the others', async () => {
      const created = await install('fs-batch-partial');
      const data = Array.from({ length: 20 }, () => executed(created.id));
      // Valid by its contract, refused by PostgreSQL (a NUL in text): the batch's insert fails as a whole.
      data[7] = executed(created.id, 'read\u0000file');
      const ids = await h.emitBatch('mcp.tool.executed', data);

      const stored = await storedAtLeast(created.id, 19);
      expect(stored).toEqual({ total: 19, distinct: 19 });
      const parked = await parkedSoon(created.id);
      expect(parked).toHaveLength(1);
      expect(parked[0]?.payload).toEqual({ events: [expect.objectContaining({ id: ids[7] })] });
      const rows = await h.sql('SELECT 1 FROM installations.request_logs WHERE id = $1', [ids[7]]);
      expect(rows).toHaveLength(0);
    });
  });

  it('keeps tool_response only while request logging is on, and shows it only then', async () => {
    const created = await install('fs-requests');
    const ref = { team_id: teamA, installation_id: created.id };
    const execute = (tool: string, success: boolean) =>
      h.emit('mcp.tool.executed', {
        installation_id: created.id,
        team_id: teamA,
        server_slug: 'filesystem',
        tool_name: tool,
        session_id: 's1',
        request_params: { path: '/etc/hosts' },
        tool_response: { content: [{ type: 'text', text: 'secret-ish output' }] },
        duration_ms: 5,
        success,
        error_message: success ? null : 'failed',
        executed_at: new Date().toISOString(),
      });
    const offId = await execute('read_file', true);
    await eventually(
      async () => (await h.client.request(s.listRequests, { ...ref, query: {} }, as(teamUser))).total === 1,
    );
    const off = await h.client.request(s.getRequest, { ...ref, request_id: offId }, as(teamUser));
    expect(off).not.toHaveProperty('tool_response');
    const [stored] = await h.sql<{ tool_response: unknown }>(
      'SELECT tool_response FROM installations.request_logs WHERE id = $1',
      [offId],
    );
    expect(stored?.tool_response).toBeNull();

    expect(
      await refusal(
        h.client.request(s.updateSettings, { ...ref, settings: { request_logging_enabled: true } }, as(teamUser)),
      ),
    ).toBe('forbidden');
    const before = h.commands.length;
    const updated = await h.client.request(
      s.updateSettings,
      { ...ref, settings: { request_logging_enabled: true } },
      as(teamAdmin),
    );
    expect(updated.settings.request_logging_enabled).toBe(true);
    expect(h.commands.slice(before).map((c) => c.payload.event)).toEqual(['mcp_installation_updated']);

    const onId = await execute('write_file', false);
    await execute('read_file', true);
    const page = await eventually(async () => {
      const result = await h.client.request(s.listRequests, { ...ref, query: {} }, as(teamUser));
      return result.total === 3 && result.items.length === 3 ? result : undefined;
    });
    expect(page.request_logging_enabled).toBe(true);
    const on = await h.client.request(s.getRequest, { ...ref, request_id: onId }, as(teamUser));
    expect(on.tool_response).toEqual({ content: [{ type: 'text', text: 'secret-ish output' }] });
    const failures = await h.client.request(s.listRequests, { ...ref, query: { success: 'false' } }, as(teamUser));
    expect(failures.items.map((r) => r.id)).toEqual([onId]);
    const reads = await h.client.request(
      s.listRequests,
      { ...ref, query: { tool_name: 'read_file', limit: 1 } },
      as(teamUser),
    );
    expect(reads).toMatchObject({ total: 2, limit: 1 });
    expect(reads.items).toHaveLength(1);
    expect(await refusal(h.client.request(s.getRequest, { ...ref, request_id: randomUUID() }, as(teamUser)))).toBe(
      'not_found',
    );
  });
});

describe('configuration distribution', () => {
  it('gives the three levels with secrets decrypted, for one team or for all', async () => {
    const created = await install('fs-config', { args: ['--team'], env: { TEAM_TOKEN: 'team-secret' } });
    const ref = { team_id: teamA, installation_id: created.id };
    // The installer's own user level is the user level of the merge.
    await h.client.request(
      s.putUserConfig,
      { ...ref, config: { args: ['--user'], env: { U: 'user-secret' } } },
      as(teamAdmin),
    );
    const records = await h.app.configurationRecords([teamA]);
    const record = records.find((r) => r.installation_id === created.id);
    expect(record).toMatchObject({
      team_slug: 'team-a',
      server_slug: 'filesystem',
      installation_name: 'fs-config',
      // The catalogue's name travels for discovery; this template has no description, so none is sent.
      server_title: 'Filesystem',
    });
    expect(record).not.toHaveProperty('server_description');
    expect(JSON.parse(record?.template_config ?? '')).toMatchObject({ command: 'npx', args: ['-y', 'fs-server'] });
    expect(JSON.parse(record?.team_config ?? '')).toEqual({
      args: ['--team'],
      env: { TEAM_TOKEN: 'team-secret' },
      headers: {},
    });
    expect(JSON.parse(record?.user_config ?? '')).toEqual({ args: ['--user'], env: { U: 'user-secret' } });
    expect(await h.app.configurationRecords([randomUUID()])).toEqual([]);
    expect((await h.app.configurationRecords(null)).length).toBe(records.length);
  });

  it('skips an installation whose secrets cannot be read, and keeps the others', async () => {
    const created = await install('fs-tampered');
    await h.sql(
      "UPDATE installations.mcp_installations SET secret_config = 'v1:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA:AAAA' WHERE id = $1",
      [created.id],
    );
    const records = await h.app.configurationRecords([teamA]);
    expect(records.some((r) => r.installation_id === created.id)).toBe(false);
    expect(records.length).toBeGreaterThan(0);
    await h.client.request(s.deleteInstallation, { team_id: teamA, installation_id: created.id }, as(teamAdmin));
  });
});

describe('job work', () => {
  it('keeps the newest 100 log lines of each installation', async () => {
    const created = await install('fs-cleanup');
    await h.sql(
      `INSERT INTO installations.server_logs (installation_id, team_id, log_level, message, "timestamp", event_id, line_no)
       SELECT $1, $2, 'info', 'line ' || n, now(), gen_random_uuid(), 0 FROM generate_series(1, 250) n`,
      [created.id, teamA],
    );
    expect(await refusal(h.client.request(jobWorkSubjects.logCleanup, {}, as(teamAdmin)))).toBe('forbidden');
    const result = await h.client.request(jobWorkSubjects.logCleanup, { keep_per_installation: 100 }, as(jobs));
    expect(result.removed).toBeGreaterThanOrEqual(150);
    const rows = await h.sql<{ count: string; oldest: string }>(
      `SELECT count(*) AS count, min(message) FILTER (WHERE message = 'line 151') AS oldest
       FROM installations.server_logs WHERE installation_id = $1`,
      [created.id],
    );
    expect(rows[0]).toEqual({ count: '100', oldest: 'line 151' });
  });

  it('does a cleanup tick once, however often and however concurrently it is asked for', async () => {
    const created = await install('fs-cleanup-once');
    const addLines = (count: number) =>
      h.sql(
        `INSERT INTO installations.server_logs (installation_id, team_id, log_level, message, "timestamp", event_id, line_no)
         SELECT $1, $2, 'info', 'line ' || n, now(), gen_random_uuid(), 0 FROM generate_series(1, $3::int) n`,
        [created.id, teamA, count],
      );
    const linesLeft = async () =>
      Number(
        (
          await h.sql<{ count: string }>('SELECT count(*) FROM installations.server_logs WHERE installation_id = $1', [
            created.id,
          ])
        )[0]?.count,
      );
    await addLines(30);
    const tick = { keep_per_installation: 10, tick_at: '2026-03-01T10:00:00.000Z' };
    // Two replicas of jobs asking for the same tick at once (one took it over from a killed one).
    const [first, second] = await Promise.all([
      h.client.request(jobWorkSubjects.logCleanup, tick, as(jobs)),
      h.client.request(jobWorkSubjects.logCleanup, tick, as(jobs)),
    ]);
    expect([first.repeated, second.repeated].sort()).toEqual([true, undefined]);
    expect(first.removed).toBe(second.removed);
    expect(first.removed).toBeGreaterThanOrEqual(20);
    expect(await linesLeft()).toBe(10);

    // Lines written since: asking for the done tick again changes nothing; the next tick does its work.
    await addLines(5);
    expect(await h.client.request(jobWorkSubjects.logCleanup, tick, as(jobs))).toEqual({
      removed: first.removed,
      repeated: true,
    });
    expect(await linesLeft()).toBe(15);
    const next = await h.client.request(
      jobWorkSubjects.logCleanup,
      { ...tick, tick_at: '2026-03-01T10:10:00.000Z' },
      as(jobs),
    );
    expect(next.repeated).toBeUndefined();
    expect(await linesLeft()).toBe(10);
  });

  it('does a template health tick once', async () => {
    const tick = { tick_at: '2026-03-01T11:00:00.000Z' };
    const first = await h.client.request(jobWorkSubjects.templateHealth, tick, as(jobs));
    await h.sql('UPDATE installations.mcp_server_templates SET last_health_check_at = NULL');
    const again = await h.client.request(jobWorkSubjects.templateHealth, tick, as(jobs));
    expect(again).toEqual({ ...first, repeated: true });
    const stamped = await h.sql<{ count: string }>(
      'SELECT count(*) FROM installations.mcp_server_templates WHERE last_health_check_at IS NOT NULL',
    );
    expect(stamped[0]?.count).toBe('0');
  });

  it('forgets client sessions a week after their last event, on the same tick', async () => {
    await h.sql(
      `INSERT INTO installations.mcp_client_sessions (satellite_id, session_id, team_id, updated_at)
       VALUES ('sat-r', 'stale', $1, now() - interval '8 days'), ('sat-r', 'recent', $1, now() - interval '6 days')`,
      [teamA],
    );
    await h.client.request(jobWorkSubjects.logCleanup, { keep_per_installation: 100 }, as(jobs));
    const rows = await h.sql<{ session_id: string }>(
      "SELECT session_id FROM installations.mcp_client_sessions WHERE satellite_id = 'sat-r'",
    );
    expect(rows.map((r) => r.session_id)).toEqual(['recent']);
  });

  it('queues each installation once per credential rotation, and a retried tick queues nothing twice', async () => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    const all = new Map<string, number>();
    for (let minute = 0; minute < 15; minute++) {
      const tick = { tick_at: new Date(start + minute * 60000).toISOString(), rotation_minutes: 15 };
      const result = await h.client.request(jobWorkSubjects.credentialValidation, tick, as(jobs));
      for (const id of result.installation_ids) all.set(id, (all.get(id) ?? 0) + 1);
      const again = await h.client.request(jobWorkSubjects.credentialValidation, tick, as(jobs));
      // The retried tick is the done one: the same reply, nothing queued again.
      expect(again).toEqual({ ...result, repeated: true });
    }
    const installations = await h.sql<{ id: string }>('SELECT id FROM installations.mcp_installations');
    expect([...all.keys()].sort()).toEqual(installations.map((i) => i.id).sort());
    expect([...all.values()].every((count) => count === 1)).toBe(true);
    const checks = h.commands.filter((c) => c.command_type === 'health_check');
    expect(checks[0]?.payload).toMatchObject({ check_type: 'credential_validation', team_id: teamA });
  });

  it.each([30_000, 300_000])(
    'selects each installation once per rotation when ticks are %i ms apart',
    async (everyMs) => {
      // A rotation window of its own (per interval too): a tick time already done is not done again.
      const start = Date.parse(everyMs === 30_000 ? '2026-02-01T00:00:00Z' : '2026-02-02T00:00:00Z');
      const rotationMs = 15 * 60_000;
      const seen = new Map<string, number>();
      for (let at = start; at < start + rotationMs; at += everyMs) {
        const result = await h.client.request(
          jobWorkSubjects.credentialValidation,
          { tick_at: new Date(at).toISOString(), rotation_minutes: 15, every_ms: everyMs },
          as(jobs),
        );
        for (const id of result.installation_ids) seen.set(id, (seen.get(id) ?? 0) + 1);
      }
      const installations = await h.sql<{ id: string }>('SELECT id FROM installations.mcp_installations');
      expect([...seen.keys()].sort()).toEqual(installations.map((i) => i.id).sort());
      expect([...seen.values()].every((count) => count === 1)).toBe(true);
    },
  );

  it("aggregates installation statuses into each template's health", async () => {
    const result = await h.client.request(
      jobWorkSubjects.templateHealth,
      { tick_at: new Date().toISOString() },
      as(jobs),
    );
    expect(result.templates_updated).toBeGreaterThanOrEqual(1);
    const template = await h.client.request(s.getTemplate, { slug: 'filesystem' }, as(teamUser));
    // fs-crash is permanently failed: the template is unhealthy and says why.
    expect(template.health_status).toBe('unhealthy');
    expect(template.health_check_error).toMatch(/permanently_failed/);
    expect(template.last_health_check_at).not.toBeNull();
  });
});
