import { globalPermissionsOf, teamPermissionsOf } from '@orbital/access';
import { anonymousActor, auditContextOf, userActor } from '@orbital/audit';
import { type AuditActor, loginBody, loginReply, meView } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';
import { publicAccess, signedIn } from '../http/routeAccess.ts';
import { sessionCookieName, sessionOf } from './createAccessResolver.ts';
import type { LoginGate } from './createLoginGate.ts';
import type { LoginRateLimiter } from './createLoginRateLimiter.ts';
import type { SessionIssuer } from './createSessionIssuer.ts';
import type { IdentityRouteDeps } from './identityRouteDeps.ts';
import { verifyAgainstDecoy, verifyPassword } from './passwordHashing.ts';

export function authRoutes(
  deps: IdentityRouteDeps & { limiter: LoginRateLimiter; loginGate: LoginGate; issueSession: SessionIssuer },
) {
  const { store, broadcast, logger, limiter } = deps;
  return [
    defineRoute({
      method: 'POST',
      url: '/api/auth/login',
      summary: 'Log in with e-mail and password: sets the session cookie and returns a bearer token',
      tags: ['auth'],
      access: publicAccess,
      body: loginBody,
      response: loginReply,
      async handler({ body, request, reply }) {
        const address = request.ip;
        // Before the rate limit and the password: with login off, no attempt is counted or checked.
        await deps.loginGate.assertEnabled();
        const attempt = await limiter.attempt(body.email, address);
        const refused = (reason: string, actor: AuditActor) =>
          store.audit({
            action: 'auth.login',
            actor,
            target: { kind: 'user', id: actor.id },
            outcome: 'failure',
            reason,
            source_ip: address,
            request_id: request.id,
          });
        if (!attempt.allowed) {
          // Once per window and limit: a flood of refused attempts must not become a flood of entries.
          if (attempt.first) await refused(`rate_limited_${attempt.scope}`, anonymousActor(body.email));
          // The request's logger: the line carries the request id, as the audit entry does.
          request.log.warn(
            { event: 'auth.login_rate_limited', account: body.email, address, scope: attempt.scope },
            'security: login refused by rate limit',
          );
          reply.header('retry-after', String(attempt.retryAfterSeconds));
          throw new AppError('rate_limited', 'Too many login attempts; try again later', {
            details: { retry_after_seconds: attempt.retryAfterSeconds },
          });
        }
        const user = await store.findUserByEmail(body.email);
        // An account without a password (single sign-on only) is checked like an unknown one.
        const valid = user?.password_hash
          ? await verifyPassword(user.password_hash, body.password)
          : await verifyAgainstDecoy(body.password);
        if (!user || !valid) {
          await refused(
            user ? 'wrong_password' : 'unknown_account',
            user ? userActor(user) : anonymousActor(body.email),
          );
          logger.warn(
            {
              event: 'auth.login_failed',
              account: body.email,
              address,
              reason: user ? 'wrong_password' : 'unknown_account',
            },
            'security: login failed',
          );
          throw new AppError('unauthenticated', 'The e-mail address or the password is wrong');
        }
        const answer = await deps.issueSession({ user, request, reply, method: 'password' });
        await limiter.succeeded(body.email, address);
        return answer;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/auth/logout',
      summary: 'Log out: revokes this session on every gateway replica and clears the cookie',
      tags: ['auth'],
      access: signedIn,
      response: z.object({ logged_out: z.literal(true) }),
      async handler(input) {
        const { request, reply } = input;
        const session = sessionOf(request);
        await store.inTransaction(async (tx) => {
          await tx.revokeSession(session.sessionId);
          await tx.audit({
            ...auditContextOf(input),
            action: 'auth.logout',
            target: { kind: 'user', id: session.user.id },
            details: { session_id: session.sessionId },
          });
        });
        await broadcast.invalidate({ kind: 'session', session_id: session.sessionId });
        logger.info(
          { event: 'auth.logout', user_id: session.user.id, session_id: session.sessionId },
          'security: session ended',
        );
        reply.clearCookie(sessionCookieName, { path: '/', httpOnly: true, secure: true, sameSite: 'strict' });
        return { logged_out: true as const };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/users/me',
      summary: 'The logged-in user, their teams and what they may do',
      tags: ['users'],
      access: signedIn,
      response: meView,
      async handler({ request }) {
        const session = sessionOf(request);
        return {
          id: session.user.id,
          email: session.user.email,
          name: session.user.name,
          global_role: session.user.globalRole,
          memberships: session.memberships.map((m) => ({
            team_id: m.team_id,
            team_slug: m.team_slug,
            team_name: m.team_name,
            role: m.role,
            permissions: [...teamPermissionsOf(session.identity, m.team_id)],
          })),
          permissions: globalPermissionsOf(session.identity),
          session_expires_at: new Date(session.expiresAt).toISOString(),
        };
      },
    }),
  ];
}
