import { stackForFile } from '@orbital/testing/stackForFile';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  globalAdmin,
  type Registered,
  registerSatellite,
  startRegistryStack,
  teamMember,
  twoTeamsInstallations,
} from './registryHarness.ts';

const stack = stackForFile(() => startRegistryStack());
beforeAll(() => {
  stack.installations.push(...twoTeamsInstallations());
});

const configurationOf = (satellite: Registered) =>
  stack.request('getConfiguration', { satellite_id: satellite.id }, satellite.identity);

describe('configuration distribution', () => {
  it("gives a team satellite its team's installations only, merged, with its secrets", async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-a');
    const { servers } = await configurationOf(sat);
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

  it('gives a global satellite every team, still skipping the invalid installation', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'cfg-global');
    const { servers } = await configurationOf(sat);
    expect(stack.installationRequests.at(-1)).toEqual({ team_ids: null });
    expect(servers.map((s) => s.process_id).sort()).toEqual([
      'filesystem-alpha-a-files',
      'filesystem-beta-b-files',
      'filesystem-beta-leak-b',
    ]);
  });

  it('shows a global admin what the satellite would run with every secret value masked, and nobody else', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-admin');
    const { servers } = await stack.request('getConfiguration', { satellite_id: sat.id }, globalAdmin);
    expect(servers.map((s) => s.env)).toEqual([{ MODE: '********', API_TOKEN: '********' }]);
    await expect(
      stack.request('getConfiguration', { satellite_id: sat.id }, teamMember('team-a', 'team_admin')),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      stack.request('getConfiguration', { satellite_id: '5a0c0b1e-0000-4000-8000-000000000000' }, globalAdmin),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses a revoked satellite', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-revoked');
    await stack.request('revokeSatellite', { satellite_id: sat.id }, teamMember('team-a', 'team_admin'));
    await expect(configurationOf(sat)).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it('sends the servers without global settings while the settings service does not answer', async () => {
    // Nothing serves settings.* in this stack: the satellite keeps the settings it holds.
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-no-settings');
    const reply = await configurationOf(sat);
    expect(reply).not.toHaveProperty('settings');
    expect(reply.servers.map((s) => s.installation_id)).toEqual(['a-files']);
  });
});
