import { type InstallationConfigRecord, settingsSubjects } from '@orbital/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  globalAdmin,
  registerSatellite,
  type SatelliteStack,
  startSatelliteStack,
  teamMember,
} from './satelliteHarness.ts';

let stack: SatelliteStack;
beforeAll(async () => {
  stack = await startSatelliteStack({ settings: true });
  stack.installations.push(
    installation('a-files', 'team-a', 'alpha', {
      team_config: JSON.stringify({ args: ['/srv/a'], env: { API_TOKEN: 'team-a-secret', MODE: 'rw' } }),
    }),
    installation('a-broken', 'team-a', 'alpha', { team_config: '{"args": ["/srv", ' }),
    installation('b-files', 'team-b', 'beta', {}),
    installation('leak-b', 'team-b', 'beta', {}),
  );
});
afterAll(async () => {
  await stack?.stop();
});

function installation(
  id: string,
  teamId: string,
  teamSlug: string,
  overrides: Partial<InstallationConfigRecord>,
): InstallationConfigRecord {
  return {
    installation_id: id,
    installation_name: id,
    team_id: teamId,
    team_slug: teamSlug,
    server_slug: 'filesystem',
    transport: 'stdio',
    template_config: JSON.stringify({ command: 'npx', args: ['-y', '@mcp/fs'], env: { MODE: 'ro' } }),
    team_config: '{}',
    user_config: null,
    settings: {},
    ...overrides,
  };
}

async function configOf(satellite: { id: string; apiKey: string }) {
  const response = await call(stack, satellite, 'GET', `${satellite.id}/config`);
  expect(response.statusCode).toBe(200);
  return response.json().data as {
    servers: Array<Record<string, unknown>>;
    settings?: { enable_swagger_docs: boolean };
  };
}

const setSwaggerDocs = (value: string, identity = globalAdmin) =>
  stack.adminBus.request(
    settingsSubjects.updateSetting,
    { key: 'global.enable_swagger_docs', changes: { value } },
    { identity },
  );

// How the registry scopes and merges a satellite's configuration is tested in the registry's own folder;
// here, that the route relays it whole to the satellite, to no other, with the settings service's values.
describe('GET /api/satellites/:id/config', () => {
  it("gives a team satellite its team's installations only, merged, with secrets in the response", async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-a');
    const { servers } = await configOf(sat);
    expect(stack.installationRequests.at(-1)).toEqual({ team_ids: ['team-a'] });
    // a-broken is skipped (invalid JSON), leak-b dropped (another team), a-files served.
    expect(servers).toEqual([
      {
        process_id: 'filesystem-alpha-a-files',
        installation_id: 'a-files',
        installation_name: 'a-files',
        team_id: 'team-a',
        team_slug: 'alpha',
        server_slug: 'filesystem',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@mcp/fs', '/srv/a'],
        env: { MODE: 'rw', API_TOKEN: 'team-a-secret' },
        headers: {},
        settings: { request_logging_enabled: false },
      },
    ]);
  });

  it("refuses another satellite's configuration", async () => {
    const a = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-own');
    const b = await registerSatellite(stack, { scope: 'team', team_id: 'team-b' }, 'cfg-other');
    const response = await call(stack, a, 'GET', `${b.id}/config`);
    expect(response.statusCode).toBe(403);
  });
});

describe('global settings in the configuration', () => {
  it('carries global.enable_swagger_docs as the settings service holds it, changed by a global admin', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-settings');
    // The definition's default, 'true', before anyone changed it.
    expect((await configOf(sat)).settings).toEqual({ enable_swagger_docs: true });

    await setSwaggerDocs('false');
    const off = await configOf(sat);
    expect(off.settings).toEqual({ enable_swagger_docs: false });
    expect(off.servers.map((s) => s.installation_id)).toEqual(['a-files']);

    await setSwaggerDocs('true');
    expect((await configOf(sat)).settings).toEqual({ enable_swagger_docs: true });
  });

  it('keeps the setting when someone who is not a global admin tries to change it', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'cfg-settings-refused');
    await setSwaggerDocs('false');
    await expect(setSwaggerDocs('true', teamMember('team-a', 'team_admin'))).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect((await configOf(sat)).settings).toEqual({ enable_swagger_docs: false });
    await setSwaggerDocs('true');
  });

  it('sends the servers without settings when the stored value is not a boolean, so satellites keep theirs', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-settings-bad');
    // The settings service refuses such a value now; one stored before it did (or by hand) still exists.
    await expect(setSwaggerDocs('sometimes')).rejects.toMatchObject({ code: 'validation_failed' });
    await stack.db.query(`UPDATE settings.settings SET value = 'sometimes' WHERE key = 'global.enable_swagger_docs'`);
    await stack.settings?.operations.reload();
    try {
      const reply = await configOf(sat);
      expect(reply).not.toHaveProperty('settings');
      expect(reply.servers.map((s) => s.installation_id)).toEqual(['a-files']);
    } finally {
      await setSwaggerDocs('true');
    }
  });
});
