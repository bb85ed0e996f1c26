import { type CallerIdentity, teamPermissions } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { hasGlobalPermission, hasTeamPermission, teamPermissionsOf } from './rolePermissions.ts';

const user = (globalRole: 'global_admin' | 'global_user', memberships: Array<[string, 'team_admin' | 'team_user']>) =>
  ({
    kind: 'user',
    user_id: 'u',
    global_role: globalRole,
    memberships: memberships.map(([teamId, role]) => ({ team_id: teamId, role })),
  }) satisfies CallerIdentity;

describe('permissions', () => {
  it('gives settings permissions to global admins only', () => {
    expect(hasGlobalPermission(user('global_admin', []), 'settings.delete')).toBe(true);
    expect(hasGlobalPermission(user('global_user', [['t', 'team_admin']]), 'settings.view')).toBe(false);
    expect(hasGlobalPermission({ kind: 'service', service: 'jobs' }, 'settings.view')).toBe(false);
  });

  it("scopes team permissions to the member's own teams", () => {
    const member = user('global_user', [
      ['t1', 'team_user'],
      ['t2', 'team_admin'],
    ]);
    expect([...teamPermissionsOf(member, 't1')].sort()).toEqual(
      ['installations.view', 'satellites.register', 'satellites.view', 'team.view'].sort(),
    );
    expect([...teamPermissionsOf(member, 't2')].sort()).toEqual([...teamPermissions].sort());
    expect(teamPermissionsOf(member, 't3').size).toBe(0);
    expect(hasTeamPermission(member, 't1', 'installations.manage')).toBe(false);
    expect(hasTeamPermission(user('global_admin', []), 'any-team', 'tokens.manage')).toBe(true);
    expect(
      teamPermissionsOf({ kind: 'satellite', satellite_id: 's', satellite_type: 'team', team_id: 't1' }, 't1').size,
    ).toBe(0);
  });
});
