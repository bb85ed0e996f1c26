import { randomBytes, randomUUID } from 'node:crypto';
import { anonymousActor, recordAudit } from '@orbital/audit';
import { type ParsedRequestOf, registrationBearerPrefix, type registrySubjects } from '@orbital/contracts';
import { satelliteKeyDigest } from '@orbital/crypto';
import { AppError } from '@orbital/errors';
import { createBoundedQueue } from '@orbital/service';
import argon2 from 'argon2';
import * as store from '../db/registryStore.ts';
import { type RefusalReason, registrationRefusal } from './registrationRefusal.ts';
import type { RegistryDeps } from './registryDeps.ts';

type Request = ParsedRequestOf<typeof registrySubjects.register>;

/** A fresh API key `<key id>.<secret>` (see parseApiKey in libs/contracts). */
export function generateApiKey(): { keyId: string; secret: string; apiKey: string } {
  const keyId = `sk_${randomBytes(12).toString('hex')}`;
  const secret = randomBytes(32).toString('base64url');
  return { keyId, secret, apiKey: `${keyId}.${secret}` };
}

function bearerToken(authorization: string | null): { token: string } | { refused: RefusalReason } {
  if (!authorization) return { refused: 'missing' };
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!match?.[1]?.startsWith(registrationBearerPrefix)) return { refused: 'malformed' };
  const token = match[1].slice(registrationBearerPrefix.length);
  return token ? { token } : { refused: 'malformed' };
}

/**
 * Argon2 runs of registrations: one at a time (a run takes every core it is given for a moment), at most
 * 16 waiting, none started more than 2 s after it was asked for. gateway-api waits 5 s for the answer:
 * a registration it gave up on would still consume the token and issue a key nobody receives, so past
 * that point the satellite is told to come back (503 with Retry-After) before its token is touched.
 */
export const registrationHashing = { concurrency: 1, maxWaiting: 16, maxWaitMs: 2000 };

/**
 * Registration: verify the token's signature and expiry, check its scope,
 * then in one transaction create the satellite and consume the token. The consumption is a
 * conditional update of the token's row, so of two concurrent registrations with one token exactly one
 * commits; the other rolls back its satellite and is refused as "already used". The API key is
 * returned once and stored as an Argon2id hash and, beside it, its fast digest (satelliteKeyDigest), by
 * which gateway-api replicas know the key without running Argon2 again. Every refusal is logged as a
 * security event with the reason and the client address, never the token.
 */
export function createRegistration(deps: RegistryDeps) {
  const { pool, signer, now, logger } = deps;
  const hashing = createBoundedQueue({
    what: 'satellite registrations',
    ...registrationHashing,
    ...deps.registrationHashing,
  });

  async function refuse(
    reason: RefusalReason,
    request: Request,
    tokenId: string | null,
    requestId: string | null,
    teamId: string | null = null,
  ): Promise<never> {
    logger.warn(
      { event: 'security.registration_refused', reason, client_ip: request.client_ip, token_id: tokenId },
      'satellite registration refused',
    );
    try {
      await store.logUsage(pool.get(), {
        satelliteId: null,
        action: 'registration_refused',
        actor: null,
        ip: request.client_ip,
        details: { reason, token_id: tokenId },
      });
      await recordAudit(pool.get(), {
        actor: anonymousActor(),
        action: 'satellite.registered',
        target: { kind: 'satellite', id: null },
        team_id: teamId,
        outcome: 'failure',
        reason,
        source_ip: request.client_ip,
        request_id: requestId,
        details: { token_id: tokenId, name: request.body.name },
      });
    } catch (error) {
      logger.error({ err: error }, 'could not record a refused registration');
    }
    throw registrationRefusal(reason);
  }

  return async function register(request: Request, requestId: string | null = null) {
    const bearer = bearerToken(request.authorization);
    if ('refused' in bearer) return refuse(bearer.refused, request, null, requestId);
    const verified = await signer.verify(bearer.token);
    if (!verified.ok) return refuse(verified.problem, request, null, requestId);
    const { claims } = verified;
    const body = request.body;
    const wantsTeam = body.satellite_type === 'team' || body.team_id !== undefined;
    if (
      (body.satellite_type === 'global' && claims.scope !== 'global') ||
      (wantsTeam && (claims.scope !== 'team' || (body.team_id !== undefined && body.team_id !== claims.teamId)))
    ) {
      return refuse('wrong_scope', request, claims.tokenId, requestId, claims.teamId);
    }

    // Hashed before the transaction: Argon2's ~100 ms must not hold the token's row lock.
    const key = generateApiKey();
    const apiKeyHash = await hashing.run(() =>
      argon2.hash(key.secret, { type: argon2.argon2id, ...deps.argon2Options }),
    );
    const satelliteId = randomUUID();
    const at = now();
    const outcome = await pool
      .get()
      .transaction(async (tx) => {
        const token = await store.findToken(tx, claims.tokenId);
        if (!token || token.scope !== claims.scope || token.team_id !== claims.teamId) return 'invalid' as const;
        const satellite = await store.insertSatellite(tx, {
          id: satelliteId,
          name: body.name,
          type: claims.scope,
          teamId: claims.teamId,
          capabilities: body.capabilities,
          systemInfo: body.system_info,
          satelliteUrl: body.satellite_url ?? null,
          apiKeyId: key.keyId,
          apiKeyHash,
          apiKeyDigest: satelliteKeyDigest(key.keyId, key.secret),
          tokenId: claims.tokenId,
          createdBy: token.created_by,
          now: at,
        });
        const consumed = await store.consumeToken(tx, claims.tokenId, satelliteId, at);
        if (!consumed) {
          const current = await store.findToken(tx, claims.tokenId);
          // Throwing rolls the satellite back; the reason travels out in the error.
          throw new RefusalSignal(current?.revoked_at ? 'revoked' : current?.used_at ? 'already_used' : 'expired');
        }
        await store.logUsage(tx, {
          satelliteId,
          action: 'registered',
          actor: token.created_by,
          ip: request.client_ip,
          details: { token_id: claims.tokenId, scope: claims.scope, team_id: claims.teamId },
        });
        // The satellite proved the token: it is the actor, under the id it is given now.
        await recordAudit(tx, {
          actor: { kind: 'satellite', id: satelliteId, email: null, name: body.name },
          action: 'satellite.registered',
          target: { kind: 'satellite', id: satelliteId },
          team_id: claims.teamId,
          source_ip: request.client_ip,
          request_id: requestId,
          details: {
            name: body.name,
            type: claims.scope,
            token_id: claims.tokenId,
            token_created_by: token.created_by,
          },
        });
        return satellite;
      })
      .catch((error: unknown) => {
        if (error instanceof RefusalSignal) return error.reason;
        throw error;
      });
    if (typeof outcome === 'string') return refuse(outcome, request, claims.tokenId, requestId, claims.teamId);
    logger.info(
      {
        event: 'satellite.registered',
        satellite_id: satelliteId,
        type: claims.scope,
        team_id: claims.teamId,
        token_id: claims.tokenId,
      },
      'satellite registered',
    );
    return {
      satellite_id: satelliteId,
      api_key: key.apiKey,
      status: 'inactive' as const,
      satellite_type: outcome.satellite_type,
      team_id: outcome.team_id,
    };
  };
}

class RefusalSignal extends AppError {
  readonly reason: RefusalReason;
  constructor(reason: RefusalReason) {
    super('unauthenticated', reason);
    this.reason = reason;
  }
}
