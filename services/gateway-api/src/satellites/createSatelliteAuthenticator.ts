import { createHash } from 'node:crypto';
import type { Bus } from '@orbital/bus';
import {
  apiKeyInvalidated,
  apiKeyInvalidatedSubject,
  parseApiKey,
  registrySubjects,
  serviceIdentity,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import argon2 from 'argon2';
import type { FastifyRequest } from 'fastify';
import type { SatelliteAccess } from '../http/defineRoute.ts';
import type { SatelliteAuthenticator } from '../identity/createAccessResolver.ts';
import { type ApiKeyCache, createApiKeyCache, type VerifiedKey } from './createApiKeyCache.ts';
import { buildAllowlist, isAllowedAddress } from './isAllowedAddress.ts';

const reRegister =
  'Check that the satellite sends "Authorization: Bearer <api key>" with the key it received at registration. ' +
  'If the key was revoked or lost, register again with a new registration token.';

function unauthenticated(message: string): AppError {
  return new AppError('unauthenticated', message, { instructions: reRegister });
}

/**
 * Verifies the satellite API key of `Authorization: Bearer <api key>` and the client address against a
 * team satellite's allowlist. `requireActive` also refuses a satellite that has not sent its first
 * heartbeat yet (403); a revoked satellite's key is not valid at all (401).
 */
export type SatelliteKeyVerifier = (
  request: FastifyRequest,
  options?: { requireActive?: boolean },
) => Promise<VerifiedKey>;

/**
 * Satellite API-key authentication (DESIGN.md improvement 1). The key id names one satellite row; the
 * registry answers with that row's Argon2 hash and the gateway verifies the secret itself, so the secret
 * never leaves the process that received it (only the hash, useless against a 256-bit secret, crosses
 * NATS) and the Argon2 cost lands on the gateway replicas, which scale with traffic. A verified key is
 * cached by SHA-256 of the whole key; concurrent first requests with one key share one verification;
 * the registry's broadcast on revocation or allowlist change evicts the satellite on every replica.
 *
 * Then: a team satellite's allowlist is checked against the client address (403). Two faces share one
 * cache: `verifyKey` (the key alone, for callers not named in a path, such as token introspection) and
 * `authenticate` (the satellite routes: the key, then the path's own id only, improvement 2).
 */
export async function createSatelliteAuthenticator(deps: {
  bus: Bus;
  logger: Logger;
  cacheTtlMs?: number;
  refusedTtlMs?: number;
  maxEntries?: number;
}): Promise<{
  authenticate: SatelliteAuthenticator;
  verifyKey: SatelliteKeyVerifier;
  cache: ApiKeyCache;
  stop(): void;
}> {
  const { bus, logger } = deps;
  const cache = createApiKeyCache({
    ttlMs: deps.cacheTtlMs ?? 60000,
    refusedTtlMs: deps.refusedTtlMs ?? 10000,
    maxEntries: deps.maxEntries ?? 100000,
  });
  const inFlight = new Map<string, Promise<VerifiedKey | null>>();

  const subscription = bus.connection.subscribe(bus.subject(apiKeyInvalidatedSubject), {
    callback: (error, msg) => {
      if (error) return;
      const parsed = apiKeyInvalidated.safeParse(msg.json());
      if (parsed.success) cache.invalidateSatellite(parsed.data.satellite_id);
    },
  });
  // A broadcast missed while disconnected could leave a revoked key cached: start over after reconnecting.
  void (async () => {
    for await (const status of bus.connection.status()) if (status.type === 'reconnect') cache.clear();
  })();
  await bus.flush();

  async function verify(keyId: string, secret: string, digest: string, requestId: string): Promise<VerifiedKey | null> {
    const epoch = cache.epoch();
    let row: Awaited<ReturnType<typeof bus.request<typeof registrySubjects.lookupApiKey>>>;
    try {
      row = await bus.request(
        registrySubjects.lookupApiKey,
        { key_id: keyId },
        { identity: serviceIdentity('gateway-api'), requestId },
      );
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    }
    if (row.status === 'revoked' || !(await argon2.verify(row.api_key_hash, secret))) return null;
    const key: VerifiedKey = {
      satelliteId: row.satellite_id,
      keyId,
      status: row.status,
      identity: {
        kind: 'satellite',
        satelliteId: row.satellite_id,
        satelliteType: row.satellite_type,
        teamId: row.team_id,
      },
      allowlist: row.satellite_type === 'team' ? buildAllowlist(row.ip_allowlist) : null,
    };
    cache.set(digest, key, epoch);
    return key;
  }

  /**
   * A satellite verified while still inactive becomes active with its first heartbeat, which the
   * registry does not broadcast. Its status is read again (a lookup, no Argon2: a key id names one
   * satellite row for good, so the secret already verified is that row's) and the entry updated.
   */
  async function refreshStatus(key: VerifiedKey, digest: string, requestId: string): Promise<VerifiedKey | null> {
    const epoch = cache.epoch();
    let row: Awaited<ReturnType<typeof bus.request<typeof registrySubjects.lookupApiKey>>>;
    try {
      row = await bus.request(
        registrySubjects.lookupApiKey,
        { key_id: key.keyId },
        { identity: serviceIdentity('gateway-api'), requestId },
      );
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    }
    if (row.satellite_id !== key.satelliteId || row.status === 'revoked') return null;
    const refreshed: VerifiedKey = { ...key, status: row.status };
    cache.set(digest, refreshed, epoch);
    return refreshed;
  }

  const verifyKey: SatelliteKeyVerifier = async (request, options = {}) => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match?.[1]) throw unauthenticated('A satellite API key is required');
    const apiKey = match[1];
    const parsed = parseApiKey(apiKey);
    const securityEvent = (reason: string, extra: object = {}) =>
      request.log.warn(
        { event: 'security.satellite_auth_refused', reason, keyId: parsed?.keyId, clientIp: request.ip, ...extra },
        'satellite authentication refused',
      );
    if (!parsed) {
      securityEvent('malformed_key');
      throw unauthenticated('The API key is not in the form <key id>.<secret>');
    }
    const digest = createHash('sha256').update(apiKey).digest('hex');
    let key = cache.get(digest);
    if (!key) {
      if (cache.isRefused(digest)) throw unauthenticated('The API key is not valid');
      let pending = inFlight.get(digest);
      if (!pending) {
        pending = verify(parsed.keyId, parsed.secret, digest, request.id).finally(() => inFlight.delete(digest));
        inFlight.set(digest, pending);
      }
      const verified = await pending;
      if (!verified) {
        cache.refuse(digest);
        securityEvent('invalid_key');
        throw unauthenticated('The API key is not valid');
      }
      key = verified;
    }
    if (!isAllowedAddress(key.allowlist, request.ip)) {
      securityEvent('address_not_allowed', { satelliteId: key.satelliteId });
      throw new AppError('forbidden', "This address is not in the satellite's IP allowlist", {
        instructions: "Call from an allowed address, or ask a team admin to add this one to the satellite's allowlist.",
      });
    }
    if (options.requireActive && key.status !== 'active') {
      const refreshed = await refreshStatus(key, digest, request.id);
      if (!refreshed) {
        securityEvent('invalid_key', { satelliteId: key.satelliteId });
        throw unauthenticated('The API key is not valid');
      }
      if (refreshed.status !== 'active') {
        securityEvent('satellite_not_active', { satelliteId: key.satelliteId });
        throw new AppError('forbidden', 'The satellite is not active yet', {
          instructions:
            'Send the first heartbeat (POST /api/satellites/<id>/heartbeat), which activates the satellite.',
        });
      }
      key = refreshed;
    }
    return key;
  };

  /** The satellite routes: the key, then the path's id must be the key's own satellite. */
  const authenticate: SatelliteAuthenticator = async (request, access) => {
    const key = await verifyKey(request);
    assertOwnPath(request, access, key);
    return key.identity;
  };

  logger.debug('satellite authentication ready');
  return { authenticate, verifyKey, cache, stop: () => subscription.unsubscribe() };
}

/** Improvement 2: a satellite acts only on its own id, whatever key it holds. */
function assertOwnPath(request: FastifyRequest, access: SatelliteAccess, key: VerifiedKey): void {
  const pathId = (request.params as Record<string, string | undefined>)[access.satelliteParam];
  if (pathId === key.satelliteId) return;
  request.log.warn(
    {
      event: 'security.satellite_auth_refused',
      reason: 'foreign_satellite_path',
      keyId: key.keyId,
      clientIp: request.ip,
      satelliteId: key.satelliteId,
    },
    'satellite authentication refused',
  );
  throw new AppError('forbidden', 'A satellite may act only on its own id', {
    instructions: 'Use the satellite id returned at registration in the path.',
  });
}
