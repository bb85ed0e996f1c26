import type { CallerIdentity, RequestField, SubjectAccess, UserAccess } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { hasGlobalPermission, hasTeamPermission, teamsWithPermission } from './rolePermissions.ts';

/** What a caller was granted for one request; handlers narrow their answer with it, never with roles. */
export type AccessGrant = {
  readonly identity: CallerIdentity;
  /**
   * The teams this request covers: the one it named when it named one (already checked), otherwise
   * every team in which the caller holds the subject's team permission; null means every team.
   * Callers that are not users cover no team, except platform services, which cover all.
   */
  teams(): string[] | null;
  /**
   * For `record_team` subjects, once the record is loaded: a caller who may not see records of that
   * team gets `not_found` with `notFound` (so ids of other teams reveal nothing), one who may see but
   * not act gets `forbidden`. A record of no team serves every team: seen by whoever sees records of
   * any team, acted on by global admins only.
   */
  requireRecordTeam(teamId: string | null, notFound: string): void;
  /** The signed-in user the request is made for, or null for any other caller. */
  userId(): string | null;
};

function fieldOf(request: unknown, path: RequestField): unknown {
  let value: unknown = request;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function refuse(identity: CallerIdentity, message: string, instructions?: string): never {
  throw new AppError(identity.kind === 'anonymous' ? 'unauthenticated' : 'forbidden', message, {
    ...(instructions ? { instructions } : {}),
  });
}

function teamPermissionOf(users: UserAccess | undefined) {
  if (users?.kind === 'team') return users.permission;
  if (users?.kind === 'record_team') return users.seen_with ?? users.permission;
  return null;
}

function describeCallers(access: SubjectAccess): string {
  const who: string[] = [];
  if (access.users) who.push('signed-in users');
  if (access.satellite) who.push('satellites');
  if (access.services?.length) who.push(access.services.join(', '));
  return who.length ? who.join(' and ') : 'no caller';
}

/** Checks a user against the subject's rule. */
function authorizeUser(identity: Extract<CallerIdentity, { kind: 'user' }>, users: UserAccess, request: unknown): void {
  switch (users.kind) {
    case 'signed_in':
    case 'record_team':
      return;
    case 'global':
      if (!hasGlobalPermission(identity, users.permission))
        refuse(identity, `This needs the ${users.permission} permission`);
      return;
    case 'member': {
      const teamId = fieldOf(request, users.team);
      if (typeof teamId !== 'string' || !identity.memberships.some((m) => m.team_id === teamId)) {
        refuse(identity, 'Only members of this team may do this');
      }
      return;
    }
    case 'team': {
      const teamId = fieldOf(request, users.team);
      if (typeof teamId === 'string') {
        if (!hasTeamPermission(identity, teamId, users.permission)) {
          refuse(identity, `This needs the ${users.permission} permission in this team`);
        }
        return;
      }
      if (users.without_team === 'signed_in') return;
      if (users.without_team && hasGlobalPermission(identity, users.without_team)) return;
      refuse(identity, `This needs the ${users.without_team ?? users.permission} permission`);
    }
  }
}

/**
 * Enforces a subject's declared access for one parsed request: `unauthenticated` for an anonymous
 * caller of anything but a public subject, `forbidden` for any other caller it does not admit. The
 * grant it returns carries the caller's team scope for the handler.
 */
export function authorizeRequest(access: SubjectAccess, identity: CallerIdentity, request: unknown): AccessGrant {
  let namedTeam: string | null = null;
  if (!access.public) {
    switch (identity.kind) {
      case 'anonymous':
        refuse(identity, `Sign in first: this is for ${describeCallers(access)}`);
        break;
      case 'service':
        if (!access.services?.includes(identity.service)) {
          refuse(identity, `This is not for the ${identity.service} service: it is for ${describeCallers(access)}`);
        }
        break;
      case 'satellite': {
        if (!access.satellite) refuse(identity, `Satellites may not do this: it is for ${describeCallers(access)}`);
        if (fieldOf(request, access.satellite.field) !== identity.satellite_id) {
          refuse(
            identity,
            'A satellite may act only on its own id',
            'Use the satellite id returned at registration in the path.',
          );
        }
        break;
      }
      case 'user':
        if (!access.users) refuse(identity, `This is for ${describeCallers(access)}`);
        authorizeUser(identity, access.users, request);
        break;
    }
  }
  const users = access.users;
  if (users?.kind === 'team' || users?.kind === 'member') {
    const named = fieldOf(request, users.team);
    if (typeof named === 'string') namedTeam = named;
  }
  const permission = teamPermissionOf(access.users);
  return {
    identity,
    teams() {
      if (namedTeam !== null) return [namedTeam];
      if (identity.kind === 'service') return null;
      if (identity.kind !== 'user') return [];
      if (!permission)
        return identity.global_role === 'global_admin' ? null : identity.memberships.map((m) => m.team_id);
      return teamsWithPermission(identity, permission);
    },
    requireRecordTeam(teamId, notFound) {
      const users = access.users;
      if (users?.kind !== 'record_team') throw new AppError('internal', 'This subject does not scope by record');
      if (identity.kind === 'service') return;
      const sees = (teams: string[] | null) =>
        teams === null || (teamId === null ? teams.length > 0 : teams.includes(teamId));
      const acts = (teams: string[] | null) => teams === null || (teamId !== null && teams.includes(teamId));
      if (!users.seen_with) {
        if (!sees(teamsWithPermission(identity, users.permission))) throw new AppError('not_found', notFound);
        return;
      }
      if (!sees(teamsWithPermission(identity, users.seen_with))) throw new AppError('not_found', notFound);
      if (!acts(teamsWithPermission(identity, users.permission))) {
        refuse(identity, `This needs the ${users.permission} permission in its team`);
      }
    },
    userId: () => (identity.kind === 'user' ? identity.user_id : null),
  };
}
