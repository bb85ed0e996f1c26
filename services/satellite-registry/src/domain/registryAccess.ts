import type { CallerIdentity } from '@orbital/contracts';
import { AppError } from '@orbital/errors';

/**
 * The registry enforces who may do what itself (DESIGN.md: services do not trust the caller to have
 * filtered). Roles as the spec gives them: global_admin everything; team_admin their team's satellites
 * and tokens; global_user may register team satellites within their memberships; team_user sees status.
 */
type User = Extract<CallerIdentity, { kind: 'user' }>;

export const isGlobalAdmin = (identity: CallerIdentity): boolean =>
  identity.kind === 'user' && identity.globalRole === 'global_admin';

function roleIn(identity: User, teamId: string) {
  return identity.memberships.find((m) => m.teamId === teamId)?.role ?? null;
}

export function requireUser(identity: CallerIdentity): User {
  if (identity.kind === 'user') return identity;
  throw new AppError(identity.kind === 'anonymous' ? 'unauthenticated' : 'forbidden', 'This is for signed-in users');
}

export type TokenTarget = { scope: 'global' } | { scope: 'team'; team_id: string };

/** Tokens: generate (global_user may, for their teams), and list or revoke (admins only). */
export function requireTokenAccess(identity: CallerIdentity, target: TokenTarget, action: 'create' | 'manage'): User {
  const user = requireUser(identity);
  if (isGlobalAdmin(user)) return user;
  if (target.scope === 'global') throw new AppError('forbidden', 'Global registration tokens are for global admins');
  const role = roleIn(user, target.team_id);
  if (role === 'team_admin') return user;
  if (action === 'create' && role !== null && user.globalRole === 'global_user') return user;
  throw new AppError('forbidden', "Registration tokens of a team are managed by the team's admins");
}

/** Team ids whose satellites the caller may see; null means every satellite. */
export function visibleTeams(identity: CallerIdentity): Set<string> | null {
  const user = requireUser(identity);
  if (isGlobalAdmin(user)) return null;
  return new Set(user.memberships.map((m) => m.teamId));
}

/**
 * Global admins see every satellite; members of a team see its team satellites and the global
 * satellites, which serve every team (theirs included).
 */
export function canSee(identity: CallerIdentity, satellite: { satellite_type: string; team_id: string | null }) {
  const teams = visibleTeams(identity);
  if (teams === null) return true;
  if (satellite.satellite_type === 'global') return teams.size > 0;
  return satellite.team_id !== null && teams.has(satellite.team_id);
}

/** Revoke a key, change an allowlist: global admins, and team admins for their team's satellites. */
export function canManage(identity: CallerIdentity, satellite: { team_id: string | null }) {
  if (isGlobalAdmin(identity)) return true;
  return identity.kind === 'user' && satellite.team_id !== null && roleIn(identity, satellite.team_id) === 'team_admin';
}

/** A satellite's own subjects: the identity gateway-api authenticated must be that satellite. */
export function requireSatellite(identity: CallerIdentity, satelliteId: string) {
  if (identity.kind !== 'satellite')
    throw new AppError('unauthenticated', 'This is for satellites, with their API key');
  if (identity.satelliteId !== satelliteId) {
    throw new AppError('forbidden', 'A satellite may act only on its own id', {
      instructions: 'Use the satellite id returned at registration in the path.',
    });
  }
  return identity;
}

/**
 * A satellite's own read subjects (its commands, its configuration): the satellite itself, or a global
 * admin looking at it (spec: satellite endpoints accept user sessions too). True for the admin.
 */
export function requireSatelliteOrGlobalAdmin(identity: CallerIdentity, satelliteId: string): boolean {
  if (isGlobalAdmin(identity)) return true;
  requireSatellite(identity, satelliteId);
  return false;
}

export function requireServiceOrGlobalAdmin(identity: CallerIdentity) {
  if (identity.kind === 'service' || isGlobalAdmin(identity)) return;
  throw new AppError(
    identity.kind === 'anonymous' ? 'unauthenticated' : 'forbidden',
    'For platform services and global admins',
  );
}

export function requireService(identity: CallerIdentity, service?: string) {
  if (identity.kind === 'service' && (!service || identity.service === service)) return;
  throw new AppError('forbidden', 'For platform services only');
}
