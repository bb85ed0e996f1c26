import type { CallerIdentity, GlobalPermission, TeamPermission } from '@orbital/contracts';
import type { FastifyRequest } from 'fastify';

/**
 * Who may call a route. This is the one declarative place a route states what it requires; the
 * resolvers that enforce each kind are registered by the module that owns that kind of credential
 * (identity for sessions: src/identity/createAccessResolver.ts).
 *
 * - `public`: anyone, no credential read (the caller is anonymous).
 * - `session`: any logged-in user (cookie `session` or `Authorization: Bearer <session token>`).
 * - `permission`: a logged-in user holding a global permission (global_admin).
 * - `team`: a logged-in user holding `permission` in the team whose id is the path parameter
 *   `teamParam`; global admins hold every team permission in every team.
 * - `satellite`: see SatelliteAccess.
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'session' }
  | { kind: 'permission'; permission: GlobalPermission }
  | { kind: 'team'; permission: TeamPermission; teamParam: string }
  | SatelliteAccess;

/**
 * A route a satellite calls with its API key (src/satellites/createSatelliteAuthenticator.ts), limited
 * to the satellite whose id is the path parameter `satelliteParam` (any other id is 403). Reusable by
 * every satellite-facing route (commands, heartbeat, results, config, events). `users` optionally also admits a
 * logged-in user holding that global permission, so the console can read what a satellite reads.
 * The identity module resolves this kind only when a `SatelliteAuthenticator` is given to it;
 * otherwise such a route answers 500 `internal`, so a missing wiring cannot fail open.
 */
export type SatelliteAccess = { kind: 'satellite'; satelliteParam: string; users?: GlobalPermission };

export type AccessResolver = (request: FastifyRequest, access: Access) => Promise<CallerIdentity>;

/** Authenticates a satellite's API key for a `satellite` route (src/satellites/createSatelliteAuthenticator.ts). */
export type SatelliteAuthenticator = (request: FastifyRequest, access: SatelliteAccess) => Promise<CallerIdentity>;
