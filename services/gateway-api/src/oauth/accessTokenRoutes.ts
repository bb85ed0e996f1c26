import { auditContextOf } from '@orbital/audit';
import { createdAccessToken, mcpScope, accessTokenView as tokenView, uuidField } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import { z } from 'zod';
import { defineRoute, type RouteInput } from '../http/defineRoute.ts';
import { signedIn, teamInPath } from '../http/routeAccess.ts';
import { type LoginGate, sessionOf } from '../identity/index.ts';
import { createSecret, hashSecret } from './oauthSecrets.ts';
import type { GrantView, OAuthStore } from './oauthStore.ts';

const toTokenView = (grant: GrantView): z.input<typeof tokenView> => ({
  ...grant,
  created_at: new Date(grant.created_at).toISOString(),
  expires_at: new Date(grant.expires_at).toISOString(),
});

const tokenParams = z.object({ tokenId: uuidField() });
const teamTokenParams = z.object({ teamId: uuidField(), tokenId: uuidField() });

/**
 * Tokens as people manage them. A user creates personal access tokens (for MCP clients without the
 * OAuth flow), each for ONE team they are a member of, lists theirs (personal tokens and OAuth
 * authorizations alike) and revokes them. A team admin lists and revokes every token of their team.
 * Revocation is immediate here; satellites stop accepting the token when their introspection cache
 * entry ends (SATELLITE_INTROSPECTION_CACHE_TTL_MS, 30 s by default).
 */
export function accessTokenRoutes(deps: {
  store: OAuthStore;
  logger: Logger;
  now: () => number;
  personalTokenMaxDays: number;
  loginGate: LoginGate;
}) {
  const { store, logger } = deps;
  const notFound = () => new AppError('not_found', 'No such token');
  const createBody = z
    .object({
      team_id: uuidField(),
      name: z.string().trim().min(1).max(200),
      expires_in_days: z
        .number()
        .int()
        .min(1)
        .max(deps.personalTokenMaxDays)
        .default(Math.min(90, deps.personalTokenMaxDays)),
    })
    .strict();

  /** Revokes a token in force and records it in the same transaction; not_found when there is none. */
  async function revokeAudited(
    input: Pick<RouteInput<unknown, unknown, unknown>, 'identity' | 'origin' | 'requestId'>,
    tokenId: string,
    where: { userId: string } | { teamId: string },
  ): Promise<void> {
    await store.inTransaction(async (tx) => {
      const grant = await tx.getGrant(tokenId);
      if (!grant || !(await tx.revokeGrant(tokenId, where))) throw notFound();
      await tx.audit({
        ...auditContextOf(input),
        action: 'access_token.revoked',
        target: { kind: 'access_token', id: tokenId },
        team_id: grant.team_id,
        details: { kind: grant.kind, name: grant.name, owner_user_id: grant.user_id, client_id: grant.client_id },
      });
    });
  }

  return [
    defineRoute({
      method: 'POST',
      url: '/api/users/me/access-tokens',
      summary: 'Create a personal access token for one of your teams (the token is shown once)',
      tags: ['access tokens'],
      access: signedIn,
      body: createBody,
      response: createdAccessToken,
      successStatus: 201,
      async handler(input) {
        const { request, body } = input;
        await deps.loginGate.assertEnabled();
        const session = sessionOf(request);
        // Stays beside the route's access: a token outlives the session, so the membership it is minted on is
        // read from the identity store now, not from the memberships the session was resolved with.
        if (!(await store.isMember(session.user.id, body.team_id))) {
          throw new AppError('forbidden', 'You can only create tokens for a team you are a member of');
        }
        const token = createSecret('personalToken');
        const expiresAt = new Date(deps.now() + body.expires_in_days * 86400 * 1000);
        const id = await store.inTransaction(async (tx) => {
          const grantId = await tx.createGrant({
            kind: 'personal',
            userId: session.user.id,
            teamId: body.team_id,
            clientId: null,
            name: body.name,
            scope: mcpScope,
            resource: null,
            expiresAt,
            tokens: [{ hash: hashSecret(token), kind: 'access', expiresAt }],
          });
          // The token's id and name, never the token.
          await tx.audit({
            ...auditContextOf(input),
            action: 'personal_token.created',
            target: { kind: 'access_token', id: grantId },
            team_id: body.team_id,
            details: { name: body.name, expires_at: expiresAt.toISOString() },
          });
          return grantId;
        });
        logger.info(
          { event: 'oauth.personal_token_created', grant_id: id, user_id: session.user.id, team_id: body.team_id },
          'personal access token created',
        );
        const grant = await store.getGrant(id);
        if (!grant) throw new AppError('internal', 'The token vanished after it was created');
        return { ...toTokenView(grant), token };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/users/me/access-tokens',
      summary: 'Your tokens in force: personal access tokens and OAuth authorizations',
      tags: ['access tokens'],
      access: signedIn,
      response: z.array(tokenView),
      handler: async ({ request }) => (await store.listGrantsOfUser(sessionOf(request).user.id)).map(toTokenView),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/users/me/access-tokens/:tokenId',
      summary: 'Revoke one of your tokens',
      tags: ['access tokens'],
      access: signedIn,
      params: tokenParams,
      response: z.object({ revoked: z.literal(true) }),
      async handler(input) {
        const { request, params } = input;
        const userId = sessionOf(request).user.id;
        await revokeAudited(input, params.tokenId, { userId });
        logger.info({ event: 'oauth.token_revoked', grant_id: params.tokenId, by: userId }, 'token revoked');
        return { revoked: true as const };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/teams/:teamId/access-tokens',
      summary: "The team's tokens in force, for team admins",
      tags: ['access tokens'],
      access: teamInPath('tokens.manage'),
      params: z.object({ teamId: uuidField() }),
      response: z.array(tokenView),
      handler: async ({ params }) => (await store.listGrantsOfTeam(params.teamId)).map(toTokenView),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/teams/:teamId/access-tokens/:tokenId',
      summary: "Revoke a token of the team's, for team admins",
      tags: ['access tokens'],
      access: teamInPath('tokens.manage'),
      params: teamTokenParams,
      response: z.object({ revoked: z.literal(true) }),
      async handler(input) {
        const { request, params } = input;
        await revokeAudited(input, params.tokenId, { teamId: params.teamId });
        logger.info(
          {
            event: 'oauth.token_revoked',
            grant_id: params.tokenId,
            team_id: params.teamId,
            by: sessionOf(request).user.id,
          },
          'token revoked by a team admin',
        );
        return { revoked: true as const };
      },
    }),
  ];
}
