import {
  type CallerIdentity,
  type GlobalPermission,
  type GlobalRole,
  globalPermissions,
  type TeamPermission,
  type TeamRole,
  teamPermissions,
} from '@orbital/contracts';

const teamRolePermissions: Record<TeamRole, readonly TeamPermission[]> = {
  team_admin: teamPermissions,
  team_user: ['team.view', 'installations.view', 'satellites.view'],
};

/** What the global role adds inside the teams a user belongs to (a global_user may register team satellites there). */
const globalRoleTeamPermissions: Record<GlobalRole, readonly TeamPermission[]> = {
  global_admin: teamPermissions,
  global_user: ['satellites.register'],
};

export function hasGlobalPermission(identity: CallerIdentity, permission: GlobalPermission): boolean {
  return identity.kind === 'user' && identity.global_role === 'global_admin' && globalPermissions.includes(permission);
}

/**
 * The permissions a caller holds in one team: the one table behind every access check, the routes'
 * and the subjects' alike (authorizeRequest).
 */
export function teamPermissionsOf(identity: CallerIdentity, teamId: string): ReadonlySet<TeamPermission> {
  if (identity.kind !== 'user') return new Set();
  if (identity.global_role === 'global_admin') return new Set(teamPermissions);
  const membership = identity.memberships.find((m) => m.team_id === teamId);
  if (!membership) return new Set();
  return new Set([...teamRolePermissions[membership.role], ...globalRoleTeamPermissions[identity.global_role]]);
}

export function hasTeamPermission(identity: CallerIdentity, teamId: string, permission: TeamPermission): boolean {
  return teamPermissionsOf(identity, teamId).has(permission);
}

/** The teams in which a caller holds a permission; null when it holds it in every team (global admins). */
export function teamsWithPermission(identity: CallerIdentity, permission: TeamPermission): string[] | null {
  if (identity.kind !== 'user') return [];
  if (identity.global_role === 'global_admin') return null;
  return identity.memberships.filter((m) => hasTeamPermission(identity, m.team_id, permission)).map((m) => m.team_id);
}

/** The global permissions of a caller, for `GET /api/users/me`. */
export function globalPermissionsOf(identity: CallerIdentity): GlobalPermission[] {
  return identity.kind === 'user' && identity.global_role === 'global_admin' ? [...globalPermissions] : [];
}
