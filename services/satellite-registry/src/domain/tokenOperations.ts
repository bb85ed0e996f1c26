import { randomUUID } from 'node:crypto';
import type { AccessGrant } from '@orbital/access';
import { type AuditContext, recordAudit } from '@orbital/audit';
import {
  type ParsedRequestOf,
  type RegistrationTokenView,
  registrationBearerPrefix,
  type registrySubjects,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import * as store from '../db/registryStore.ts';
import type { RegistryDeps } from './registryDeps.ts';
import { toTokenView } from './registryViews.ts';

type Req<K extends keyof typeof registrySubjects> = ParsedRequestOf<(typeof registrySubjects)[K]>;

type TokenTarget = Req<'listTokens'>['target'];

const teamOf = (target: TokenTarget) => (target.scope === 'team' ? target.team_id : null);

/** Tokens record who made them: a person, through gateway-api (the subjects admit users only). */
function creatorOf(access: AccessGrant): string {
  const userId = access.userId();
  if (!userId) throw new AppError('forbidden', 'Registration tokens are made by signed-in users');
  return userId;
}

export function createTokenOperations(deps: RegistryDeps) {
  const { pool, signer, now, logger } = deps;
  return {
    async createToken({ target, options }: Req<'createToken'>, access: AccessGrant, who: AuditContext) {
      const userId = creatorOf(access);
      const createdAt = now();
      const expiresAt = new Date(createdAt.getTime() + options.expires_in_minutes * 60000);
      const id = randomUUID();
      const teamId = teamOf(target);
      const row = await pool.get().transaction(async (tx) => {
        const inserted = await store.insertToken(tx, {
          id,
          scope: target.scope,
          teamId,
          description: options.description ?? null,
          createdBy: userId,
          createdAt,
          expiresAt,
        });
        // The token's id, never the token.
        await recordAudit(tx, {
          ...who,
          action: 'registration_token.created',
          target: { kind: 'registration_token', id },
          team_id: teamId,
          details: {
            scope: target.scope,
            description: options.description ?? null,
            expires_at: expiresAt.toISOString(),
          },
        });
        return inserted;
      });
      const token = await signer.sign({ tokenId: id, scope: target.scope, teamId }, expiresAt);
      logger.info({
        event: 'registration_token.created',
        token_id: id,
        scope: target.scope,
        team_id: teamId,
        by: userId,
      });
      return {
        ...toTokenView(row, createdAt),
        token,
        authorization: `Bearer ${registrationBearerPrefix}${token}`,
      };
    },

    async listTokens({ target }: Req<'listTokens'>): Promise<RegistrationTokenView[]> {
      const at = now();
      return (await store.listTokens(pool.get(), target.scope, teamOf(target))).map((row) => toTokenView(row, at));
    },

    async revokeToken({ target, token_id }: Req<'revokeToken'>, access: AccessGrant, who: AuditContext) {
      const row = await pool.get().transaction(async (tx) => {
        const existing = await store.findToken(tx, token_id);
        // A token of another scope is "not found" here: its existence is not the caller's business.
        if (!existing || existing.scope !== target.scope || existing.team_id !== teamOf(target)) {
          throw new AppError('not_found', 'No such registration token in this scope');
        }
        const revoked = await store.revokeToken(tx, token_id, now());
        if (!revoked) throw new AppError('conflict', 'The token has already been used; revoke the satellite instead');
        await recordAudit(tx, {
          ...who,
          action: 'registration_token.revoked',
          target: { kind: 'registration_token', id: token_id },
          team_id: existing.team_id,
          details: { scope: existing.scope },
        });
        return revoked;
      });
      logger.info({ event: 'registration_token.revoked', token_id, by: access.userId() });
      return toTokenView(row, now());
    },
  };
}
