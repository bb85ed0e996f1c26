import { userActor } from '@orbital/audit';
import type { LoginReply } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sessionCookieName } from './createAccessResolver.ts';
import type { LoginGate } from './createLoginGate.ts';
import type { IdentityStore, UserRow } from './identityStore.ts';
import { createSessionToken, hashSessionToken } from './sessionToken.ts';

/**
 * The session cookie: HttpOnly (no script reads it), Secure, and SameSite=Strict: no other site can
 * make a browser send it, which rules out cross-site request forgery without CSRF tokens; the API has
 * no link-followed GET that needs the cookie from another site. Browsers treat http://localhost as
 * secure, so development works as is.
 */
export const sessionCookieOptions = (expiresAt: Date) =>
  ({ httpOnly: true, secure: true, sameSite: 'strict', path: '/', expires: expiresAt }) as const;

/** How the person proved who they are, for the log line (`password`, `invitation`, or a sign-in provider). */
export type SignInMethod = string;

export type SessionIssuer = (input: {
  user: UserRow;
  request: FastifyRequest;
  reply: FastifyReply;
  method: SignInMethod;
}) => Promise<LoginReply>;

/**
 * Hands out a session once a person has proved who they are, whatever the way: asks the login switch,
 * refuses a disabled account (`account_disabled`) and one whose address was never confirmed
 * (`email_unverified`), then stores the session (only its token's SHA-256), sets the cookie and answers
 * with the bearer token. Every sign-in route (password, invitation, single sign-on) goes through it, so
 * none can skip a check.
 */
export function createSessionIssuer(deps: {
  store: IdentityStore;
  loginGate: LoginGate;
  logger: Logger;
  sessionTtlMs: number;
  now: () => number;
}): SessionIssuer {
  return async ({ user, request, reply, method }) => {
    await deps.loginGate.assertEnabled();
    if (user.disabled_at !== null) {
      throw new AppError('account_disabled', 'This account is disabled; a global admin can enable it again');
    }
    if (user.email_verified_at === null) {
      throw new AppError(
        'email_unverified',
        'Confirm your e-mail address first: follow the link in the mail sent when you registered',
        { instructions: 'No mail? Ask for a new link: POST /api/auth/verify-email/resend with your address.' },
      );
    }
    const token = createSessionToken();
    const expiresAt = new Date(deps.now() + deps.sessionTtlMs);
    const session = await deps.store.inTransaction(async (tx) => {
      const created = await tx.createSession({
        userId: user.id,
        tokenHash: hashSessionToken(token),
        expiresAt,
        createdFrom: request.ip,
      });
      await tx.markLoggedIn(user.id);
      await tx.audit({
        action: 'auth.login',
        actor: userActor(user),
        target: { kind: 'user', id: user.id },
        source_ip: request.ip,
        request_id: request.id,
        details: { method, session_id: created.id },
      });
      return created;
    });
    deps.logger.info(
      { event: 'auth.login_succeeded', user_id: user.id, session_id: session.id, address: request.ip, method },
      'security: login succeeded',
    );
    reply.setCookie(sessionCookieName, token, sessionCookieOptions(expiresAt));
    return {
      token,
      token_type: 'Bearer' as const,
      expires_at: expiresAt.toISOString(),
      user: { id: user.id, email: user.email, name: user.name, global_role: user.global_role },
    };
  };
}
