import { stackForFile } from '@orbital/testing/stackForFile';
import { describe, expect, it, vi } from 'vitest';
import {
  gatewayApi,
  globalAdmin,
  heartbeat,
  heartbeatBody,
  registerSatellite,
  startRegistryStack,
  teamMember,
} from './registryHarness.ts';

const stack = stackForFile(() => startRegistryStack());

const keyIdOf = (apiKey: string) => apiKey.split('.')[0] ?? '';

describe('revoking a satellite', () => {
  it("takes a team admin of its team, tells every gateway replica, and refuses the satellite's next heartbeat", async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'rev-a' }, 'revoked');
    await heartbeat(stack, sat);
    await expect(
      stack.request('revokeSatellite', { satellite_id: sat.id }, teamMember('rev-a', 'team_user')),
    ).rejects.toMatchObject({ code: 'forbidden' });
    // Another team's admin is not told it exists.
    await expect(
      stack.request('revokeSatellite', { satellite_id: sat.id }, teamMember('rev-b', 'team_admin')),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(stack.invalidated).not.toContain(sat.id);

    const admin = teamMember('rev-a', 'team_admin');
    const revoked = await stack.request('revokeSatellite', { satellite_id: sat.id }, admin);
    expect(revoked).toMatchObject({ id: sat.id, status: 'revoked' });
    await vi.waitFor(() => expect(stack.invalidated).toContain(sat.id));
    expect(await stack.request('lookupApiKey', { key_id: keyIdOf(sat.apiKey) }, gatewayApi)).toMatchObject({
      status: 'revoked',
    });
    await expect(heartbeat(stack, sat)).rejects.toMatchObject({
      code: 'unauthenticated',
      instructions: expect.any(String),
    });
    // Who revoked it stays on record.
    const logged = await stack.sql(
      "SELECT actor FROM satellite_usage_logs WHERE satellite_id = $1 AND action = 'revoked'",
      [sat.id],
    );
    expect(logged).toEqual([{ actor: admin.user_id }]);
  });

  it('answers not_found for a satellite that does not exist', async () => {
    await expect(
      stack.request('revokeSatellite', { satellite_id: '5a0c0b1e-0000-4000-8000-000000000000' }, globalAdmin),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      stack.request('getSatellite', { satellite_id: '5a0c0b1e-0000-4000-8000-000000000000' }, globalAdmin),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('IP allowlists', () => {
  it("replace a team satellite's allowlist, which gateway-api reads with the key, and tell every replica", async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'ip-a' }, 'fenced');
    const updated = await stack.request(
      'updateAllowlist',
      { satellite_id: sat.id, ip_allowlist: ['10.0.0.0/8', '2001:db8::/32'] },
      teamMember('ip-a', 'team_admin'),
    );
    expect(updated.ip_allowlist).toEqual(['10.0.0.0/8', '2001:db8::/32']);
    await vi.waitFor(() => expect(stack.invalidated).toContain(sat.id));
    expect(await stack.request('lookupApiKey', { key_id: keyIdOf(sat.apiKey) }, gatewayApi)).toMatchObject({
      ip_allowlist: ['10.0.0.0/8', '2001:db8::/32'],
    });
  });

  it('refuse team users, addresses that are not ones, and allowlists on global satellites', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'ip-b' }, 'fenced-b');
    await expect(
      stack.request(
        'updateAllowlist',
        { satellite_id: sat.id, ip_allowlist: ['10.0.0.0/8'] },
        teamMember('ip-b', 'team_user'),
      ),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      stack.request('updateAllowlist', { satellite_id: sat.id, ip_allowlist: ['not-an-address'] }, globalAdmin),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    const global = await registerSatellite(stack, { scope: 'global' }, 'global-fenced');
    await expect(
      stack.request('updateAllowlist', { satellite_id: global.id, ip_allowlist: ['10.0.0.0/8'] }, globalAdmin),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    expect(stack.invalidated).not.toContain(sat.id);
    expect(stack.invalidated).not.toContain(global.id);
  });
});

describe('metrics', () => {
  it('are shown to members of the satellite team only, within the limits of the query', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'met-a' }, 'metrics');
    await heartbeat(stack, sat, heartbeatBody());
    const query = { satellite_id: sat.id, query: { limit: 10 } };
    expect((await stack.request('getMetrics', query, teamMember('met-a', 'team_user'))).heartbeats).toHaveLength(1);
    await expect(stack.request('getMetrics', query, teamMember('met-b', 'team_admin'))).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      stack.request('getMetrics', { satellite_id: sat.id, query: { limit: 0 } }, globalAdmin),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
