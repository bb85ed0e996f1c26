import { anonymousIdentity } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { FastifyRequest } from 'fastify';
import type { AccessResolver, SatelliteAuthenticator } from '../http/defineRoute.ts';
import { rememberPerson } from '../http/requestOrigin.ts';
import type { SessionAuthenticator } from './createSessionAuthenticator.ts';
import type { AuthenticatedSession } from './createSessionCache.ts';
import { isWellFormedSessionToken } from './sessionToken.ts';

export const sessionCookieName = 'session';

const sessions = new WeakMap<FastifyRequest, AuthenticatedSession>();

/** The session a route open to people was called with. */
export function sessionOf(request: FastifyRequest): AuthenticatedSession {
  const session = sessions.get(request);
  if (!session) throw new AppError('internal', 'The route has no session; its access kind is wrong');
  return session;
}

/**
 * Whether a request presents a user session rather than a satellite's key: a bearer value shaped like a
 * session token (a satellite key is `<key id>.<secret>`), or the session cookie without any header.
 */
function presentsSession(request: FastifyRequest): boolean {
  const header = request.headers.authorization;
  if (header === undefined) return request.cookies?.[sessionCookieName] !== undefined;
  const match = /^Bearer ([^\s]+)$/i.exec(header);
  return match?.[1] !== undefined && isWellFormedSessionToken(match[1]);
}

/** The session token of a request: the bearer token when an Authorization header is sent, else the cookie. */
export function sessionTokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer ([^\s]+)$/i.exec(header);
    if (!match?.[1]) {
      throw new AppError('unauthenticated', 'The Authorization header must be "Bearer <session token>"');
    }
    return match[1];
  }
  return request.cookies?.[sessionCookieName] ?? null;
}

/**
 * Reads the caller's identity from the credential a route's access asks for (401 when it is missing or
 * not valid); whether that caller may call the route is judged after, by `authorizeRequest`, the one
 * interpreter of access (registerRoute). The identity is what the gateway sends in the header of every
 * NATS request it makes for this call.
 */
export function createAccessResolver(deps: {
  authenticate: SessionAuthenticator;
  satellite?: SatelliteAuthenticator;
}): AccessResolver {
  async function requireSession(request: FastifyRequest): Promise<AuthenticatedSession> {
    const token = sessionTokenOf(request);
    if (!token) {
      throw new AppError('unauthenticated', 'Log in first: send the session cookie or an Authorization: Bearer token');
    }
    const session = await deps.authenticate(token);
    if (!session) throw new AppError('unauthenticated', 'The session is not valid or has expired; log in again');
    sessions.set(request, session);
    rememberPerson(request, session.user);
    return session;
  }

  return async (request, access) => {
    if (access.public) return anonymousIdentity;
    // A route open to people as well as satellites (an admin reading a satellite's queue or configuration)
    // takes a session when the request presents one; anything else is judged as a satellite's key.
    if (access.satellite && !(access.users && presentsSession(request))) {
      if (!deps.satellite) throw new AppError('internal', 'Satellite authentication is not wired into this gateway');
      return deps.satellite(request);
    }
    if (access.users) return (await requireSession(request)).identity;
    throw new AppError('internal', 'No caller over HTTP may call this route');
  };
}
