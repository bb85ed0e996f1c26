import { createUserBody, userView } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';
import { userParams } from '../http/pathParams.ts';
import { checkPasswordStrength } from './checkPasswordStrength.ts';
import type { IdentityRouteDeps } from './identityRouteDeps.ts';
import { toUserView } from './identityViews.ts';
import { hashPassword } from './passwordHashing.ts';

/** Accounts are created by global admins (there is no self-registration yet). */
export function userRoutes(deps: IdentityRouteDeps) {
  const { store, broadcast, logger } = deps;
  return [
    defineRoute({
      method: 'GET',
      url: '/api/users',
      summary: 'Every user',
      tags: ['users'],
      access: { kind: 'permission', permission: 'users.view' },
      response: z.array(userView),
      handler: async () => (await store.listUsers()).map(toUserView),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/users',
      summary: 'Create a user (the password must meet the password policy)',
      tags: ['users'],
      access: { kind: 'permission', permission: 'users.manage' },
      body: createUserBody,
      response: userView,
      successStatus: 201,
      async handler({ body, identity }) {
        const weakness = checkPasswordStrength(body.password, { email: body.email });
        if (weakness) {
          throw new AppError('validation_failed', `The password ${weakness}`, {
            details: [{ path: 'body.password', message: weakness }],
          });
        }
        const user = await store.createUser({
          email: body.email,
          name: body.name,
          passwordHash: await hashPassword(body.password),
          globalRole: body.global_role,
        });
        logger.info(
          { event: 'identity.user_created', user_id: user.id, by: identity.kind === 'user' ? identity.user_id : null },
          'user created',
        );
        return toUserView(user);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/users/:userId/sessions',
      summary: 'Revoke every session of a user, on every gateway replica, from the next request on',
      tags: ['users'],
      access: { kind: 'permission', permission: 'users.manage' },
      params: userParams,
      response: z.object({ revoked: z.number().int() }),
      async handler({ params, identity }) {
        if (!(await store.getUser(params.userId))) throw new AppError('not_found', 'No such user');
        const revoked = await store.revokeUserSessions(params.userId);
        await broadcast.invalidate({ kind: 'user', user_id: params.userId });
        logger.info(
          {
            event: 'auth.sessions_revoked',
            user_id: params.userId,
            revoked,
            by: identity.kind === 'user' ? identity.user_id : null,
          },
          'security: sessions revoked',
        );
        return { revoked };
      },
    }),
  ];
}
