import { randomUUID } from 'node:crypto';
import {
  type CallerIdentity,
  type ParsedRequestOf,
  type RegistrationTokenView,
  registrationBearerPrefix,
  type registrySubjects,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import * as store from '../db/registryStore.ts';
import { requireTokenAccess, type TokenTarget } from './registryAccess.ts';
import type { RegistryDeps } from './registryDeps.ts';
import { toTokenView } from './registryViews.ts';

type Req<K extends keyof typeof registrySubjects> = ParsedRequestOf<(typeof registrySubjects)[K]>;

const teamOf = (target: TokenTarget) => (target.scope === 'team' ? target.team_id : null);

export function createTokenOperations(deps: RegistryDeps) {
  const { pool, signer, now, logger } = deps;
  return {
    async createToken({ target, options }: Req<'createToken'>, identity: CallerIdentity) {
      const user = requireTokenAccess(identity, target, 'create');
      const createdAt = now();
      const expiresAt = new Date(createdAt.getTime() + options.expires_in_minutes * 60000);
      const id = randomUUID();
      const teamId = teamOf(target);
      const row = await store.insertToken(pool.get(), {
        id,
        scope: target.scope,
        teamId,
        description: options.description ?? null,
        createdBy: user.userId,
        createdAt,
        expiresAt,
      });
      const token = await signer.sign({ tokenId: id, scope: target.scope, teamId }, expiresAt);
      logger.info({ event: 'registration_token.created', tokenId: id, scope: target.scope, teamId, by: user.userId });
      return {
        ...toTokenView(row, createdAt),
        token,
        authorization: `Bearer ${registrationBearerPrefix}${token}`,
      };
    },

    async listTokens({ target }: Req<'listTokens'>, identity: CallerIdentity): Promise<RegistrationTokenView[]> {
      requireTokenAccess(identity, target, 'manage');
      const at = now();
      return (await store.listTokens(pool.get(), target.scope, teamOf(target))).map((row) => toTokenView(row, at));
    },

    async revokeToken({ target, token_id }: Req<'revokeToken'>, identity: CallerIdentity) {
      const user = requireTokenAccess(identity, target, 'manage');
      const db = pool.get();
      const existing = await store.findToken(db, token_id);
      // A token of another scope is "not found" here: its existence is not the caller's business.
      if (!existing || existing.scope !== target.scope || existing.team_id !== teamOf(target)) {
        throw new AppError('not_found', 'No such registration token in this scope');
      }
      const row = await store.revokeToken(db, token_id, now());
      if (!row) throw new AppError('conflict', 'The token has already been used; revoke the satellite instead');
      logger.info({ event: 'registration_token.revoked', tokenId: token_id, by: user.userId });
      return toTokenView(row, now());
    },
  };
}
