import { type CallerIdentity, type TeamRole } from '@orbital/contracts';
import { AppError } from '@orbital/errors';

/**
 * Role checks the service makes itself (DESIGN.md: a service does not trust its caller to have
 * filtered). Global admins may do everything; team roles apply inside their own team only.
 */
function refuse(identity: CallerIdentity, message: string): never {
  throw new AppError(identity.kind === 'anonymous' ? 'unauthenticated' : 'forbidden', message);
}

function teamRoleOf(identity: CallerIdentity, teamId: string): TeamRole | 'global_admin' | null {
  if (identity.kind !== 'user') return null;
  if (identity.globalRole === 'global_admin') return 'global_admin';
  return identity.memberships.find((m) => m.teamId === teamId)?.role ?? null;
}

export function requireSignedIn(identity: CallerIdentity): Extract<CallerIdentity, { kind: 'user' }> {
  if (identity.kind !== 'user') refuse(identity, 'Sign in to see the MCP server catalogue');
  return identity;
}

export function requireGlobalAdmin(identity: CallerIdentity): void {
  if (identity.kind === 'user' && identity.globalRole === 'global_admin') return;
  refuse(identity, 'The MCP server catalogue is managed by global administrators');
}

/** Reads of a team's installations: team_admin, team_user or global admin. */
export function requireTeamMember(identity: CallerIdentity, teamId: string): void {
  if (teamRoleOf(identity, teamId) === null) refuse(identity, 'Only members of this team may see its installations');
}

/** Writes of a team's installations: team_admin or global admin. */
export function requireTeamAdmin(identity: CallerIdentity, teamId: string): void {
  const role = teamRoleOf(identity, teamId);
  if (role === 'team_admin' || role === 'global_admin') return;
  refuse(identity, "Only this team's administrators may change its installations");
}

/** The user level belongs to the member themself (a global admin has no user level in a team they are not in). */
export function requireMemberThemself(identity: CallerIdentity, teamId: string): string {
  if (identity.kind === 'user' && identity.memberships.some((m) => m.teamId === teamId)) return identity.userId;
  refuse(identity, 'Only members of this team have a user configuration of its installations');
}

export function requireService(identity: CallerIdentity): void {
  if (identity.kind !== 'service') refuse(identity, 'This subject is for platform services only');
}
