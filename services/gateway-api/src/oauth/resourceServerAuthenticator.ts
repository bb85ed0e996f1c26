import { isAppError } from '@orbital/errors';
import type { FastifyRequest } from 'fastify';
import type { SatelliteKeyVerifier } from '../satellites/createSatelliteAuthenticator.ts';

/** A resource server (a satellite) allowed to introspect tokens; a team satellite only for its team. */
export type ResourceServer = { satelliteId: string; teamId: string | null };

/**
 * How the introspection endpoint knows its caller is a satellite. Null: not authenticated (401
 * `invalid_client`); a thrown AppError keeps its status (403 for an address outside a team
 * satellite's allowlist or a satellite not active yet).
 */
export type ResourceServerAuthenticator = (request: FastifyRequest) => Promise<ResourceServer | null>;

/**
 * Introspection callers authenticate with their satellite API key (`Authorization: Bearer <api key>`),
 * verified by the same cached, revocation-aware verifier as the satellite routes, without their
 * path-id check (introspection names no satellite). Only an active satellite may introspect. The old
 * shared secret is gone: it could not tell satellites apart, so every caller counted as global.
 */
export function createSatelliteResourceServerAuthenticator(
  verifyKey: SatelliteKeyVerifier,
): ResourceServerAuthenticator {
  return async (request) => {
    let key: Awaited<ReturnType<SatelliteKeyVerifier>>;
    try {
      key = await verifyKey(request, { requireActive: true });
    } catch (error) {
      if (isAppError(error) && error.code === 'unauthenticated') return null;
      throw error;
    }
    const { satellite_type: satelliteType, team_id: teamId } = key.identity;
    if (satelliteType === 'global') return { satelliteId: key.satelliteId, teamId: null };
    // A team satellite always has its team; without one it must not pass for a global satellite.
    if (!teamId) return null;
    return { satelliteId: key.satelliteId, teamId };
  };
}
