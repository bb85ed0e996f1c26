import {
  type CallerIdentity,
  globalAccess,
  publicAccess,
  type SubjectAccess,
  signedIn,
  type TeamPermission,
  teamAccess,
} from '@orbital/contracts';
import type { FastifyRequest } from 'fastify';

/**
 * Who may call a route, in the one vocabulary of access (`SubjectAccess` in libs/contracts), judged by
 * its one interpreter, `authorizeRequest`, the function `bus.serve` runs for every subject. A route that
 * serves a subject (proxyRoute, subjectRoute) takes the subject's access as it is; only a route that serves
 * no subject (the gateway's own identity and OAuth data, satellite event intake) declares one here, whose
 * request fields name parts of the HTTP request (`params.teamId`, `params.id`).
 *
 * What HTTP adds is only how the caller's identity is read from a credential, which the access itself
 * tells (createAccessResolver): nothing for `public`, a session for `users`, a satellite's API key for
 * `satellite` (and a session too when it also names `users`, so the console reads what a satellite reads).
 */
export type Access = SubjectAccess;

export { globalAccess, publicAccess, signedIn };

/** A permission in the team whose id is the path parameter `param`; global admins hold it in every team. */
export function teamInPath(permission: TeamPermission, param = 'teamId'): Access {
  return teamAccess(permission, `params.${param}`);
}

/** A satellite on the route whose path parameter `param` is its own id (any other id is 403). */
export function ownSatellite(param = 'id'): Access {
  return { satellite: { field: `params.${param}` } };
}

/** Reads the caller's identity from the credential the access asks for: 401 when it is missing or not valid. */
export type AccessResolver = (request: FastifyRequest, access: Access) => Promise<CallerIdentity>;

/**
 * Reads a satellite's identity from its API key (src/satellites/createSatelliteAuthenticator.ts); whether
 * the key's satellite may call the route is then judged with the rest of the access.
 */
export type SatelliteAuthenticator = (request: FastifyRequest) => Promise<CallerIdentity>;
