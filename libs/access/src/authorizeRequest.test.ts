import type { CallerIdentity, SubjectAccess } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { authorizeRequest } from './authorizeRequest.ts';

const user = (
  globalRole: 'global_admin' | 'global_user',
  memberships: Array<[string, 'team_admin' | 'team_user']> = [],
): CallerIdentity => ({
  kind: 'user',
  user_id: `u-${globalRole}-${memberships.map(([t, r]) => `${t}:${r}`).join(',')}`,
  global_role: globalRole,
  memberships: memberships.map(([team_id, role]) => ({ team_id, role })),
});
const admin = user('global_admin');
const teamAdmin = user('global_user', [['a', 'team_admin']]);
const teamUser = user('global_user', [['a', 'team_user']]);
const outsider = user('global_user', [['b', 'team_admin']]);
const anonymous: CallerIdentity = { kind: 'anonymous' };
const satellite = (id: string): CallerIdentity => ({
  kind: 'satellite',
  satellite_id: id,
  satellite_type: 'team',
  team_id: 'a',
});

/** The code a refusal of `run` carries, or `ok`. */
function codeOf(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

/** The code a refusal of the request carries, or `ok`. */
function outcome(access: SubjectAccess, identity: CallerIdentity, request: unknown = {}): string {
  return codeOf(() => authorizeRequest(access, identity, request));
}

/** The outcome, for a caller, of acting on a record of `team` (null: of no team) under `access`. */
const recordTeamOutcome = (access: SubjectAccess) => (identity: CallerIdentity, team: string | null) =>
  codeOf(() => authorizeRequest(access, identity, {}).requireRecordTeam(team, 'No such satellite'));

describe('authorizeRequest', () => {
  it('admits anyone to a public subject, and only the named callers to the others', () => {
    expect(outcome({ public: true }, anonymous)).toBe('ok');
    const services: SubjectAccess = { services: ['installations'] };
    expect(outcome(services, { kind: 'service', service: 'installations' })).toBe('ok');
    expect(outcome(services, { kind: 'service', service: 'jobs' })).toBe('forbidden');
    expect(outcome(services, admin)).toBe('forbidden');
    expect(outcome(services, anonymous)).toBe('unauthenticated');
  });

  it('holds users to a global permission', () => {
    const access: SubjectAccess = { users: { kind: 'global', permission: 'settings.edit' } };
    expect(outcome(access, admin)).toBe('ok');
    expect(outcome(access, teamAdmin)).toBe('forbidden');
    expect(outcome(access, { kind: 'service', service: 'settings' })).toBe('forbidden');
  });

  it('reads the team from the request field the subject names', () => {
    const access: SubjectAccess = { users: { kind: 'team', permission: 'installations.manage', team: 'team_id' } };
    expect(outcome(access, teamAdmin, { team_id: 'a' })).toBe('ok');
    expect(outcome(access, teamUser, { team_id: 'a' })).toBe('forbidden');
    expect(outcome(access, outsider, { team_id: 'a' })).toBe('forbidden');
    expect(outcome(access, admin, { team_id: 'anything' })).toBe('ok');
    // A request without the team is refused: no team, no permission in it.
    expect(outcome(access, teamAdmin, {})).toBe('forbidden');
  });

  it('decides a request that names no team by `without_team`', () => {
    const tokens: SubjectAccess = {
      users: {
        kind: 'team',
        permission: 'satellites.register',
        team: 'target.team_id',
        without_team: 'satellites.manage_global',
      },
    };
    expect(outcome(tokens, teamUser, { target: { scope: 'team', team_id: 'a' } })).toBe('ok');
    expect(outcome(tokens, teamUser, { target: { scope: 'global' } })).toBe('forbidden');
    expect(outcome(tokens, admin, { target: { scope: 'global' } })).toBe('ok');

    const list: SubjectAccess = {
      users: { kind: 'team', permission: 'satellites.view', team: 'team_id', without_team: 'signed_in' },
    };
    expect(authorizeRequest(list, teamUser, {}).teams()).toEqual(['a']);
    expect(authorizeRequest(list, outsider, { team_id: 'b' }).teams()).toEqual(['b']);
    expect(authorizeRequest(list, admin, {}).teams()).toBeNull();
    expect(outcome(list, teamUser, { team_id: 'b' })).toBe('forbidden');
  });

  it('scopes a record by its team: unseen is not found, seen but not managed is forbidden', () => {
    const manage: SubjectAccess = {
      users: { kind: 'record_team', permission: 'satellites.manage', seen_with: 'satellites.view' },
    };
    const check = recordTeamOutcome(manage);
    expect(check(teamAdmin, 'a')).toBe('ok');
    expect(check(teamUser, 'a')).toBe('forbidden');
    expect(check(outsider, 'a')).toBe('not_found');
    // A record of no team serves every team: members of any team see it, global admins act on it.
    expect(check(teamAdmin, null)).toBe('forbidden');
    expect(check(user('global_user'), null)).toBe('not_found');
    expect(check(admin, null)).toBe('ok');

    const see: SubjectAccess = { users: { kind: 'record_team', permission: 'satellites.view' } };
    const sees = recordTeamOutcome(see);
    expect(sees(teamUser, 'a')).toBe('ok');
    expect(sees(outsider, 'a')).toBe('not_found');
    expect(sees(outsider, null)).toBe('ok');
    expect(sees(user('global_user'), null)).toBe('not_found');
  });

  it('admits members of the named team in any role, whatever their global role', () => {
    const access: SubjectAccess = { users: { kind: 'member', team: 'team_id' } };
    expect(outcome(access, teamUser, { team_id: 'a' })).toBe('ok');
    expect(outcome(access, outsider, { team_id: 'a' })).toBe('forbidden');
    expect(outcome(access, admin, { team_id: 'a' })).toBe('forbidden');
  });

  it('lets a satellite act on its own id only, and says what to do about it', () => {
    const access: SubjectAccess = { satellite: { field: 'satellite_id' } };
    expect(outcome(access, satellite('s1'), { satellite_id: 's1' })).toBe('ok');
    expect(() => authorizeRequest(access, satellite('s1'), { satellite_id: 's2' })).toThrow(
      expect.objectContaining({ code: 'forbidden', instructions: expect.any(String) }),
    );
    expect(outcome(access, admin, { satellite_id: 's1' })).toBe('forbidden');
  });
});
