import type { GlobalPermission, TeamPermission } from '../identity/permissions.ts';
import type { ProcessName } from '../processes.ts';

/** A dotted path to a field of the parsed request (`team_id`, `target.team_id`, `query.team_id`). */
export type RequestField = string;

/**
 * Which signed-in users may call a subject.
 *
 * - `signed_in`: any of them; the handler narrows what they see with the grant's `teams()`.
 * - `global`: holders of a global permission (global admins).
 * - `team`: holders of a team permission in the team the request names at `team`. When the request
 *   names none (the field is optional), `without_team` decides: a global permission, or `signed_in`
 *   for lists the handler narrows to the caller's teams.
 * - `record_team`: the team is on a stored record the handler loads first (a satellite's team); the
 *   handler asks the grant with that team. A caller without `seen_with` (default: `permission`) in that
 *   team is told the record does not exist. A record of no team (a global satellite) serves every team:
 *   whoever holds `seen_with` in any team sees it, and acting on it takes `permission` in every team
 *   (global admins).
 * - `member`: members of the team the request names at `team`, in any role; for what belongs to one
 *   person inside a team (their own level of an installation's configuration).
 */
export type UserAccess =
  | { kind: 'signed_in' }
  | { kind: 'global'; permission: GlobalPermission }
  | {
      kind: 'team';
      permission: TeamPermission;
      team: RequestField;
      without_team?: GlobalPermission | 'signed_in';
    }
  | { kind: 'record_team'; permission: TeamPermission; seen_with?: TeamPermission }
  | { kind: 'member'; team: RequestField };

/**
 * Who may call a subject, declared once beside its schemas and enforced by `bus.serve` before the
 * handler runs. A caller needs one matching entry: anonymous callers only `public` subjects, platform
 * processes the subjects that name them, satellites only subjects about themselves, users by `users`.
 * The same declaration tells which processes request the subject (people and satellites reach NATS
 * through gateway-api), from which each process's NATS permissions can be generated.
 */
export type SubjectAccess = {
  /** Anyone, without a credential: what the request carries is checked by the handler (a registration token). */
  public?: true;
  users?: UserAccess;
  /** A satellite acting on itself: the request field holding its id must be its own. */
  satellite?: { field: RequestField };
  /** Platform processes that call with their own identity. */
  services?: readonly ProcessName[];
};

export const publicAccess: SubjectAccess = { public: true };

export const signedIn: SubjectAccess = { users: { kind: 'signed_in' } };

export function globalAccess(permission: GlobalPermission): SubjectAccess {
  return { users: { kind: 'global', permission } };
}

export function teamAccess(permission: TeamPermission, team: RequestField = 'team_id'): SubjectAccess {
  return { users: { kind: 'team', permission, team } };
}

export function serviceAccess(...services: ProcessName[]): SubjectAccess {
  return { services };
}

export function satelliteAccess(field: RequestField = 'satellite_id'): SubjectAccess {
  return { satellite: { field } };
}

/**
 * The processes that send a subject's requests: gateway-api for everything people and satellites
 * call (it is the only way in from outside), and the platform processes named in `services`.
 */
export function requestersOf(access: SubjectAccess): ProcessName[] {
  const edge = access.public || access.users || access.satellite ? (['gateway-api'] as const) : [];
  return [...new Set<ProcessName>([...edge, ...(access.services ?? [])])];
}
