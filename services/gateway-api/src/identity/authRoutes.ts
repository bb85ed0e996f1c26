import { globalPermissionsOf, loginBody, loginReply, meView, teamPermissionsOf } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';
import { sessionCookieName, sessionOf } from './createAccessResolver.ts';
import type { LoginGate } from './createLoginGate.ts';
import type { LoginRateLimiter } from './createLoginRateLimiter.ts';
import type { IdentityRouteDeps } from './identityRouteDeps.ts';
import { verifyAgainstDecoy, verifyPassword } from './passwordHashing.ts';
import { createSessionToken, hashSessionToken } from './sessionToken.ts';

/**
 * The session cookie: HttpOnly (no script reads it), Secure, and SameSite=Strict: no other site can
 * make a browser send it, which rules out cross-site request forgery without CSRF tokens; the API has
 * no link-followed GET that needs the cookie from another site. Browsers treat http://localhost as
 * secure, so development works as is.
 */
const cookieOptions = (expiresAt: Date) =>
  ({ httpOnly: true, secure: true, sameSite: 'strict', path: '/', expires: expiresAt }) as const;

export function authRoutes(
  deps: IdentityRouteDeps & { limiter: LoginRateLimiter; loginGate: LoginGate; sessionTtlMs: number },
) {
  const { store, broadcast, logger, limiter } = deps;
  return [
    defineRoute({
      method: 'POST',
      url: '/api/auth/login',
      summary: 'Log in with e-mail and password: sets the session cookie and returns a bearer token',
      tags: ['auth'],
      access: { kind: 'public' },
      body: loginBody,
      response: loginReply,
      async handler({ body, request, reply }) {
        const address = request.ip;
        // Before the rate limit and the password: with login off, no attempt is counted or checked.
        await deps.loginGate.assertEnabled();
        const attempt = await limiter.attempt(body.email, address);
        if (!attempt.allowed) {
          logger.warn(
            { event: 'auth.login_rate_limited', account: body.email, address, scope: attempt.scope },
            'security: login refused by rate limit',
          );
          reply.header('retry-after', String(attempt.retryAfterSeconds));
          throw new AppError('rate_limited', 'Too many login attempts; try again later', {
            details: { retry_after_seconds: attempt.retryAfterSeconds },
          });
        }
        const user = await store.findUserByEmail(body.email);
        const valid = user
          ? await verifyPassword(user.password_hash, body.password)
          : await verifyAgainstDecoy(body.password);
        if (!user || !valid) {
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
        await limiter.succeeded(body.email, address);
        const token = createSessionToken();
        const expiresAt = new Date(deps.now() + deps.sessionTtlMs);
        const session = await store.createSession({
          userId: user.id,
          tokenHash: hashSessionToken(token),
          expiresAt,
          createdFrom: address,
        });
        logger.info(
          { event: 'auth.login_succeeded', user_id: user.id, session_id: session.id, address },
          'security: login succeeded',
        );
        reply.setCookie(sessionCookieName, token, cookieOptions(expiresAt));
        return {
          token,
          token_type: 'Bearer' as const,
          expires_at: expiresAt.toISOString(),
          user: { id: user.id, email: user.email, name: user.name, global_role: user.global_role },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/auth/logout',
      summary: 'Log out: revokes this session on every gateway replica and clears the cookie',
      tags: ['auth'],
      access: { kind: 'session' },
      response: z.object({ logged_out: z.literal(true) }),
      async handler({ request, reply }) {
        const session = sessionOf(request);
        await store.revokeSession(session.sessionId);
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
      access: { kind: 'session' },
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
