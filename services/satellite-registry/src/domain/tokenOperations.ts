import { randomUUID } from 'node:crypto';
import {
  type AccessGrant,
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
    async createToken({ target, options }: Req<'createToken'>, access: AccessGrant) {
      const userId = creatorOf(access);
      const createdAt = now();
      const expiresAt = new Date(createdAt.getTime() + options.expires_in_minutes * 60000);
      const id = randomUUID();
      const teamId = teamOf(target);
      const row = await store.insertToken(pool.get(), {
        id,
        scope: target.scope,
        teamId,
        description: options.description ?? null,
        createdBy: userId,
        createdAt,
        expiresAt,
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

    async revokeToken({ target, token_id }: Req<'revokeToken'>, access: AccessGrant) {
      const db = pool.get();
      const existing = await store.findToken(db, token_id);
      // A token of another scope is "not found" here: its existence is not the caller's business.
      if (!existing || existing.scope !== target.scope || existing.team_id !== teamOf(target)) {
        throw new AppError('not_found', 'No such registration token in this scope');
      }
      const row = await store.revokeToken(db, token_id, now());
      if (!row) throw new AppError('conflict', 'The token has already been used; revoke the satellite instead');
      logger.info({ event: 'registration_token.revoked', token_id, by: access.userId() });
      return toTokenView(row, now());
    },
  };
}
