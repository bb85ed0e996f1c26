import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { hashSecret } from './oauthSecrets.ts';

/** A resource server (a satellite) allowed to introspect tokens; a team satellite only for its team. */
export type ResourceServer = { name: string; teamId: string | null };

/**
 * How the introspection endpoint knows its caller is a satellite. This is the seam where the
 * satellite's registry API key (issue 7) goes: an authenticator that verifies
 * `Authorization: Bearer <api key>` and returns the satellite with its type and team. Until then,
 * createSharedSecretAuthenticator below.
 */
export type ResourceServerAuthenticator = (request: FastifyRequest) => Promise<ResourceServer | null>;

/**
 * TEMPORARY, until satellites have registry API keys: one secret shared by every satellite
 * (`OAUTH_INTROSPECTION_SECRET` here, `SATELLITE_INTROSPECTION_SECRET` on satellites), sent as
 * `Authorization: Bearer <secret>`. It cannot tell satellites apart, so every caller counts as a
 * global satellite. Without a configured secret, introspection refuses everyone.
 */
export function createSharedSecretAuthenticator(secret: string | undefined): ResourceServerAuthenticator {
  const expected = secret ? hashSecret(secret) : null;
  return async (request) => {
    if (!expected) return null;
    const match = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '');
    if (!match?.[1]) return null;
    return timingSafeEqual(hashSecret(match[1]), expected) ? { name: 'shared-secret satellite', teamId: null } : null;
  };
}
