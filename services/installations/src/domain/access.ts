import { type CallerIdentity, hasGlobalPermission, hasTeamPermission } from '@orbital/contracts';
import { AppError } from '@orbital/errors';

/**
 * Role checks the service makes itself (DESIGN.md: a service does not trust its caller to have
 * filtered), with the same permission table gateway-api uses for its route checks.
 */
function refuse(identity: CallerIdentity, message: string): never {
  throw new AppError(identity.kind === 'anonymous' ? 'unauthenticated' : 'forbidden', message);
}

/** The catalogue is visible to every signed-in user (team members choose from it). */
export function requireSignedIn(identity: CallerIdentity): void {
  if (identity.kind !== 'user') refuse(identity, 'Sign in to see the MCP server catalogue');
}

export function requireGlobalAdmin(identity: CallerIdentity): void {
  if (!hasGlobalPermission(identity, 'mcp_servers.manage')) {
    refuse(identity, 'The MCP server catalogue is managed by global administrators');
  }
}

/** Reads of a team's installations: team_admin, team_user or global admin. */
export function requireTeamMember(identity: CallerIdentity, teamId: string): void {
  if (!hasTeamPermission(identity, teamId, 'installations.view')) {
    refuse(identity, 'Only members of this team may see its installations');
  }
}

/** Writes of a team's installations: team_admin or global admin. */
export function requireTeamAdmin(identity: CallerIdentity, teamId: string): void {
  if (!hasTeamPermission(identity, teamId, 'installations.manage')) {
    refuse(identity, "Only this team's administrators may change its installations");
  }
}

/** The user level belongs to the member themself: a user can set only their own, in a team they belong to. */
export function requireMemberThemself(identity: CallerIdentity, teamId: string): string {
  if (identity.kind === 'user' && identity.memberships.some((m) => m.teamId === teamId)) return identity.userId;
  refuse(identity, 'Only members of this team have a user configuration of its installations');
}

export function requireService(identity: CallerIdentity): void {
  if (identity.kind !== 'service') refuse(identity, 'This subject is for platform services only');
}
