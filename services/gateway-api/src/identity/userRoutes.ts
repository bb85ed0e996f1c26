import { auditContextOf } from '@orbital/audit';
import {
  changePasswordBody,
  createUserBody,
  listUsersQuery,
  updateUserBody,
  userPage,
  userView,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';
import { userParams } from '../http/pathParams.ts';
import { globalAccess, signedIn } from '../http/routeAccess.ts';
import { checkPasswordStrength } from './checkPasswordStrength.ts';
import { sessionOf } from './createAccessResolver.ts';
import type { IdentityRouteDeps } from './identityRouteDeps.ts';
import { toUserView } from './identityViews.ts';
import { hashPassword, verifyPassword } from './passwordHashing.ts';

/** The password policy's refusal, at the field that carried the password. */
export function assertStrongPassword(password: string, email: string, field: string): void {
  const weakness = checkPasswordStrength(password, { email });
  if (weakness) {
    throw new AppError('validation_failed', `The password ${weakness}`, {
      details: [{ path: field, message: weakness }],
    });
  }
}

/**
 * People, as global admins manage them (list and search, create, change the global role, disable and
 * enable, delete), and each person's own password. Disabling, deleting and a role change evict the
 * person's cached sessions on every replica before answering, so they hold from the next request.
 */
export function userRoutes(deps: IdentityRouteDeps) {
  const { store, broadcast, logger, audit } = deps;
  const actor = (identity: { kind: string; user_id?: string }) => (identity.kind === 'user' ? identity.user_id : null);
  const noSuchUser = () => new AppError('not_found', 'No such user');

  return [
    defineRoute({
      method: 'GET',
      url: '/api/users',
      summary: 'People: search (`q` over e-mail address and name), filter by status, page (`limit`, `offset`)',
      tags: ['users'],
      access: globalAccess('users.view'),
      querystring: listUsersQuery,
      response: userPage,
      async handler({ query }) {
        const page = await store.listUsers(query);
        return { items: page.items.map(toUserView), total: page.total, limit: query.limit, offset: query.offset };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/users/:userId',
      summary: 'One person',
      tags: ['users'],
      access: globalAccess('users.view'),
      params: userParams,
      response: userView,
      async handler({ params }) {
        const user = await store.getUser(params.userId);
        if (!user) throw noSuchUser();
        return toUserView(user);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/users',
      summary: 'Create a user (the password must meet the password policy); the address counts as confirmed',
      tags: ['users'],
      access: globalAccess('users.manage'),
      body: createUserBody,
      response: userView,
      successStatus: 201,
      async handler(input) {
        const { body, identity } = input;
        assertStrongPassword(body.password, body.email, 'body.password');
        const passwordHash = await hashPassword(body.password);
        const user = await store.inTransaction(async (tx) => {
          const created = await tx.createUser({
            email: body.email,
            name: body.name,
            passwordHash,
            globalRole: body.global_role,
            // A global admin vouches for the address they typed.
            emailVerified: true,
          });
          await tx.audit({
            ...auditContextOf(input),
            action: 'user.created',
            target: { kind: 'user', id: created.id },
            details: { email: created.email, name: created.name, global_role: created.global_role },
          });
          return created;
        });
        logger.info({ event: 'identity.user_created', user_id: user.id, by: actor(identity) }, 'user created');
        return toUserView(user);
      },
    }),
    defineRoute({
      method: 'PUT',
      url: '/api/users/:userId',
      summary:
        "Change a person's global role or disable/enable the account (disabling ends their sessions and tokens at once); never the last active global admin",
      tags: ['users'],
      access: globalAccess('users.manage'),
      params: userParams,
      body: updateUserBody,
      response: userView,
      async handler({ params, body, identity, request }) {
        const changed = await store.changeAccount(params.userId, {
          globalRole: body.global_role,
          disabled: body.disabled,
        });
        if (changed === null || changed === 'deleted') throw noSuchUser();
        await broadcast.invalidate({ kind: 'user', user_id: params.userId });
        logger.info(
          {
            event: 'identity.user_changed',
            user_id: params.userId,
            global_role: body.global_role,
            disabled: body.disabled,
            by: actor(identity),
          },
          'security: account changed',
        );
        await audit(request, identity, {
          action: 'user.updated',
          target: { kind: 'user', id: params.userId },
          details: {
            ...(body.global_role ? { global_role: body.global_role } : {}),
            ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
          },
        });
        return toUserView(changed);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/users/:userId',
      summary:
        'Delete a person: memberships, sessions and tokens go; their id and name stay, so what they created stays attributed',
      tags: ['users'],
      access: globalAccess('users.manage'),
      params: userParams,
      response: z.object({ deleted: z.literal(true) }),
      async handler({ params, identity, request }) {
        const before = await store.getUser(params.userId);
        const deleted = await store.changeAccount(params.userId, { delete: true });
        if (deleted === null) throw noSuchUser();
        await audit(request, identity, {
          action: 'user.deleted',
          target: { kind: 'user', id: params.userId },
          details: { name: before?.name ?? null },
        });
        await broadcast.invalidate({ kind: 'user', user_id: params.userId });
        logger.info(
          { event: 'identity.user_deleted', user_id: params.userId, by: actor(identity) },
          'security: account deleted',
        );
        return { deleted: true as const };
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/users/:userId/sessions',
      summary: 'Revoke every session of a user, on every gateway replica, from the next request on',
      tags: ['users'],
      access: globalAccess('users.manage'),
      params: userParams,
      response: z.object({ revoked: z.number().int() }),
      async handler(input) {
        const { params, identity } = input;
        const user = await store.getUser(params.userId);
        if (!user) throw noSuchUser();
        const revoked = await store.inTransaction(async (tx) => {
          const count = await tx.revokeUserSessions(params.userId);
          await tx.audit({
            ...auditContextOf(input),
            action: 'session.revoked',
            target: { kind: 'user', id: params.userId },
            details: { email: user.email, revoked: count },
          });
          return count;
        });
        await broadcast.invalidate({ kind: 'user', user_id: params.userId });
        logger.info(
          { event: 'auth.sessions_revoked', user_id: params.userId, revoked, by: actor(identity) },
          'security: sessions revoked',
        );
        return { revoked };
      },
    }),
    defineRoute({
      method: 'PUT',
      url: '/api/users/me/password',
      summary: 'Change your own password (the current one is required); your other sessions end',
      tags: ['users'],
      access: signedIn,
      body: changePasswordBody,
      response: z.object({ changed: z.literal(true), other_sessions_revoked: z.literal(true) }),
      async handler({ body, request, identity }) {
        const session = sessionOf(request);
        const user = await store.getUserWithHash(session.user.id);
        if (!user) throw noSuchUser();
        // An account without a password (single sign-on only) has no current one to give.
        if (!user.password_hash || !(await verifyPassword(user.password_hash, body.current_password))) {
          logger.warn(
            { event: 'auth.password_change_failed', user_id: user.id, address: request.ip },
            'security: password change with a wrong current password',
          );
          await audit(request, identity, {
            action: 'auth.password_changed',
            target: { kind: 'user', id: user.id },
            outcome: 'failure',
            reason: 'wrong_current_password',
          });
          throw new AppError('validation_failed', 'The current password is wrong', {
            details: [{ path: 'body.current_password', message: 'is wrong' }],
          });
        }
        assertStrongPassword(body.new_password, user.email, 'body.new_password');
        if (!(await store.setPassword(user.id, await hashPassword(body.new_password), session.sessionId))) {
          throw noSuchUser();
        }
        await broadcast.invalidate({ kind: 'user', user_id: user.id });
        logger.info({ event: 'auth.password_changed', user_id: user.id }, 'security: password changed');
        await audit(request, identity, { action: 'auth.password_changed', target: { kind: 'user', id: user.id } });
        return { changed: true as const, other_sessions_revoked: true as const };
      },
    }),
  ];
}
