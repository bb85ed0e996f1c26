import { oidcTeamMapping } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { claimValues, mappedGlobalRole, mappedTeams } from './mapClaims.ts';

describe('claim mappings', () => {
  it('reads a claim by its exact name, then as a path, as a list of strings', () => {
    const claims = {
      groups: ['a', 7, 'b'],
      'https://example.test/roles': 'admin',
      realm_access: { roles: ['ops'] },
    };
    expect(claimValues(claims, 'groups')).toEqual(['a', 'b']);
    expect(claimValues(claims, 'https://example.test/roles')).toEqual(['admin']);
    expect(claimValues(claims, 'realm_access.roles')).toEqual(['ops']);
    expect(claimValues(claims, 'missing')).toEqual([]);
  });

  it('makes a global admin of any value mapped to it, and a global user of everyone else', () => {
    const mapping = { admins: 'global_admin', staff: 'global_user' } as const;
    expect(mappedGlobalRole({ groups: ['staff', 'admins'] }, 'groups', mapping)).toBe('global_admin');
    expect(mappedGlobalRole({ groups: ['staff'] }, 'groups', mapping)).toBe('global_user');
    // A claim value named like an Object property never reaches the prototype.
    expect(mappedGlobalRole({ groups: ['constructor', 'toString'] }, 'groups', mapping)).toBe('global_user');
  });

  it('gives each named team the strongest role any value maps to, and names every managed team', () => {
    const mapping = oidcTeamMapping.parse({
      devs: 'platform',
      leads: ['platform:team_admin', 'data'],
      ops: 'infra:team_user',
    });
    const teams = mappedTeams({ groups: ['devs', 'leads', 'constructor'] }, 'groups', mapping);
    expect(teams.managed).toEqual(['data', 'infra', 'platform']);
    expect(Object.fromEntries(teams.roles)).toEqual({ platform: 'team_admin', data: 'team_user' });
  });

  it('refuses a team target that is not a slug with an optional team role', () => {
    expect(oidcTeamMapping.safeParse({ devs: 'platform:owner' }).success).toBe(false);
    expect(oidcTeamMapping.safeParse({ devs: 'Platform Team' }).success).toBe(false);
    expect(oidcTeamMapping.safeParse({ devs: [] }).success).toBe(false);
  });
});
