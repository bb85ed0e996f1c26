import { timingSafeEqual } from 'node:crypto';
import type { Bus } from '@orbital/bus';
import { apiKeyInvalidatedBroadcast, parseApiKey, registrySubjects, serviceIdentity } from '@orbital/contracts';
import { satelliteKeyDigest } from '@orbital/crypto';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import { createBoundedQueue, type ServiceMetrics } from '@orbital/service';
import argon2 from 'argon2';
import type { FastifyRequest } from 'fastify';
import type { SatelliteAuthenticator } from '../http/defineRoute.ts';
import { type ApiKeyCache, createApiKeyCache, type KnownKey, type VerifiedKey } from './createApiKeyCache.ts';
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
 * Satellite API-key authentication. The key id names one satellite row (never a scan of every hash); the
 * registry answers with that row's Argon2 hash and fast digest, and the gateway verifies the secret
 * itself, so the secret never leaves the process that received it (only the hash and digest, useless
 * against a 256-bit secret, cross NATS).
 *
 * Argon2 runs only on a key's first sight anywhere: the registry stores a digest of every key it issues
 * (satelliteKeyDigest), and of an older key once a replica has verified it with Argon2
 * (`registry.apikey.remember`), so every replica, after every restart, knows a key with one lookup and
 * one SHA-256. The Argon2 runs that remain go through a bounded queue (`argon2Queue`): one at a time,
 * beyond a few waiting the satellite is told to come back (503 with Retry-After), so a fleet of unseen
 * keys cannot take the cores user routes need. In the replica a known key is then kept by its key id
 * (createApiKeyCache) and a request costs one salted SHA-256 and a constant-time comparison. Concurrent
 * first requests with one key share one verification. The registry's broadcast on revocation or allowlist
 * change drops the satellite on every replica; a known key is also confirmed with a plain lookup every
 * `confirmAfterMs` and after a NATS reconnect (broadcasts may have been missed), in the background, so no
 * request waits for it and a database outage does not stop satellites this replica knows.
 *
 * Then: a team satellite's allowlist is checked against the client address (403). Two faces share one
 * cache: `verifyKey` (the key alone, for callers not named in a path, such as token introspection) and
 * `authenticate` (the satellite routes, whose access admits a key on its own satellite's path only).
 */
export const argon2Queue = { concurrency: 1, maxWaiting: 8, maxWaitMs: 3000 };

export async function createSatelliteAuthenticator(deps: {
  bus: Bus;
  logger: Logger;
  metrics?: ServiceMetrics;
  confirmAfterMs?: number;
  refusedTtlMs?: number;
  maxEntries?: number;
  /** The bounds of the Argon2 queue (argon2Queue), for tests. */
  argon2?: { concurrency?: number; maxWaiting?: number; maxWaitMs?: number };
}): Promise<{
  authenticate: SatelliteAuthenticator;
  verifyKey: SatelliteKeyVerifier;
  cache: ApiKeyCache;
  stop(): void;
}> {
  const { bus, logger } = deps;
  const cache = createApiKeyCache({
    confirmAfterMs: deps.confirmAfterMs ?? 60000,
    refusedTtlMs: deps.refusedTtlMs ?? 10000,
    maxEntries: deps.maxEntries ?? 100000,
  });
  const verifying = new Map<string, Promise<KnownKey | null>>();
  const argon2Runs = createBoundedQueue({
    what: 'satellite keys seen for the first time',
    ...argon2Queue,
    ...deps.argon2,
  });
  const firstSights = deps.metrics?.counter(
    'orbital_satellite_key_first_sights_total',
    'Satellite keys this replica had not seen, by how they were checked: digest (one SHA-256), argon2, busy (refused with 503: the Argon2 queue was full), invalid',
    ['check'],
  );
  const confirming = new Map<string, Promise<VerifiedKey | null>>();

  const subscription = bus.listen(apiKeyInvalidatedBroadcast, ({ satellite_id }) =>
    cache.invalidateSatellite(satellite_id),
  );
  // A broadcast missed while disconnected could leave a revoked key known: confirm every key again.
  void (async () => {
    for await (const status of bus.connection.status()) if (status.type === 'reconnect') cache.markAllStale();
  })();
  await bus.flush();

  type KeyRow = Awaited<ReturnType<typeof bus.request<typeof registrySubjects.lookupApiKey>>>;

  /** The registry's row for a key id; null when no satellite has it. */
  async function lookup(keyId: string, requestId: string): Promise<KeyRow | null> {
    try {
      return await bus.request(
        registrySubjects.lookupApiKey,
        { key_id: keyId },
        { identity: serviceIdentity('gateway-api'), requestId },
      );
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    }
  }

  const allowlistOf = (row: KeyRow) => (row.satellite_type === 'team' ? buildAllowlist(row.ip_allowlist) : null);

  /**
   * Whether the secret is the row's: by its digest when the registry has one, otherwise by Argon2 in the
   * queue, after which the digest is handed to the registry for every replica's next first sight.
   */
  async function secretMatches(row: KeyRow, keyId: string, secret: string, requestId: string): Promise<boolean> {
    const digest = satelliteKeyDigest(keyId, secret);
    if (row.api_key_digest !== null) {
      const stored = Buffer.from(row.api_key_digest);
      const given = Buffer.from(digest);
      const matches = stored.length === given.length && timingSafeEqual(stored, given);
      firstSights?.inc({ check: matches ? 'digest' : 'invalid' });
      return matches;
    }
    let matches: boolean;
    try {
      matches = await argon2Runs.run(() => argon2.verify(row.api_key_hash, secret));
    } catch (error) {
      if (error instanceof AppError && error.code === 'unavailable') firstSights?.inc({ check: 'busy' });
      throw error;
    }
    firstSights?.inc({ check: matches ? 'argon2' : 'invalid' });
    if (matches) {
      bus
        .request(
          registrySubjects.rememberApiKeyDigest,
          { key_id: keyId, api_key_hash: row.api_key_hash, api_key_digest: digest },
          { identity: serviceIdentity('gateway-api'), requestId },
        )
        .catch((error: unknown) =>
          logger.warn({ err: error, key_id: keyId }, 'satellite key verified, but its digest could not be stored now'),
        );
    }
    return matches;
  }

  /** First sight of a key in this replica: the row, then its digest (or Argon2). */
  async function verify(keyId: string, secret: string, requestId: string): Promise<KnownKey | null> {
    const epoch = cache.epoch();
    const row = await lookup(keyId, requestId);
    if (!row || row.status === 'revoked' || !(await secretMatches(row, keyId, secret, requestId))) return null;
    const key: VerifiedKey = {
      satelliteId: row.satellite_id,
      keyId,
      status: row.status,
      identity: {
        kind: 'satellite',
        satellite_id: row.satellite_id,
        satellite_type: row.satellite_type,
        team_id: row.team_id,
      },
      allowlist: allowlistOf(row),
    };
    cache.set(key, row.api_key_hash, secret, epoch);
    return { key, hash: row.api_key_hash, stale: false };
  }

  /**
   * Reads a known key's row again (no Argon2: the secret was verified against this very hash). The key
   * stays only while its row is the same satellite, not revoked, with the same hash; its status and
   * allowlist are taken over. Null: the key is no longer valid. Throws when the registry cannot answer.
   */
  async function confirm(keyId: string, known: KnownKey, requestId: string): Promise<VerifiedKey | null> {
    const epoch = cache.epoch();
    const row = await lookup(keyId, requestId);
    if (
      !row ||
      row.satellite_id !== known.key.satelliteId ||
      row.status === 'revoked' ||
      row.api_key_hash !== known.hash
    ) {
      cache.drop(keyId);
      return null;
    }
    const update = { status: row.status, allowlist: allowlistOf(row) };
    cache.confirm(keyId, update, epoch);
    return { ...known.key, ...update };
  }

  /** One confirmation per key at a time, shared by the requests that want it. */
  function confirmOnce(keyId: string, known: KnownKey, requestId: string): Promise<VerifiedKey | null> {
    let pending = confirming.get(keyId);
    if (!pending) {
      pending = confirm(keyId, known, requestId).finally(() => confirming.delete(keyId));
      confirming.set(keyId, pending);
    }
    return pending;
  }

  /** A stale key serves this request as it stands; its confirmation runs beside it. */
  function confirmInBackground(keyId: string, known: KnownKey, requestId: string): void {
    if (confirming.has(keyId)) return;
    confirmOnce(keyId, known, requestId).catch((error: unknown) => {
      cache.postpone(keyId);
      logger.debug({ err: error, key_id: keyId }, 'satellite key not confirmed now (registry unavailable); kept');
    });
  }

  const verifyKey: SatelliteKeyVerifier = async (request, options = {}) => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match?.[1]) throw unauthenticated('A satellite API key is required');
    const apiKey = match[1];
    const parsed = parseApiKey(apiKey);
    const securityEvent = (reason: string, extra: object = {}) =>
      request.log.warn(
        { event: 'security.satellite_auth_refused', reason, key_id: parsed?.keyId, client_ip: request.ip, ...extra },
        'satellite authentication refused',
      );
    if (!parsed) {
      securityEvent('malformed_key');
      throw unauthenticated('The API key is not in the form <key id>.<secret>');
    }
    let known: KnownKey | null = cache.match(parsed.keyId, parsed.secret) ?? null;
    if (known) {
      if (known.stale) confirmInBackground(parsed.keyId, known, request.id);
    } else {
      if (cache.isRefused(apiKey)) throw unauthenticated('The API key is not valid');
      let pending = verifying.get(apiKey);
      if (!pending) {
        pending = verify(parsed.keyId, parsed.secret, request.id).finally(() => verifying.delete(apiKey));
        verifying.set(apiKey, pending);
      }
      known = await pending;
      if (!known) {
        cache.refuse(apiKey);
        securityEvent('invalid_key');
        throw unauthenticated('The API key is not valid');
      }
    }
    let key = known.key;
    if (!isAllowedAddress(key.allowlist, request.ip)) {
      securityEvent('address_not_allowed', { satelliteId: key.satelliteId });
      throw new AppError('forbidden', "This address is not in the satellite's IP allowlist", {
        instructions: "Call from an allowed address, or ask a team admin to add this one to the satellite's allowlist.",
      });
    }
    if (options.requireActive && key.status !== 'active') {
      // A satellite becomes active with its first heartbeat, which the registry does not broadcast: read
      // the status again now (a lookup, no Argon2).
      const refreshed = await confirmOnce(parsed.keyId, known, request.id);
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

  /**
   * The satellite routes: the key's identity. That the path names the key's own satellite is part of the
   * route's access (`ownSatellite`), judged with every other rule by `authorizeRequest`.
   */
  const authenticate: SatelliteAuthenticator = async (request) => (await verifyKey(request)).identity;

  logger.debug('satellite authentication ready');
  return { authenticate, verifyKey, cache, stop: () => subscription.unsubscribe() };
}
