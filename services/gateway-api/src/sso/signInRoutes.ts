import type { AuditRecord } from '@orbital/audit';
import { type SignInMethods, signInMethods } from '@orbital/contracts';
import type { CommonQueryMethods } from '@orbital/db';
import { httpStatusFor, isAppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import { parseUrl, type SettingsReader } from '@orbital/settings-client';
import type { FastifyReply, FastifyRequest } from 'fastify';
import * as oidc from 'openid-client';
import { z } from 'zod';
import { defineRoute, type Route } from '../http/defineRoute.ts';
import { publicAccess } from '../http/routeAccess.ts';
import type { IdentityModule } from '../identity/index.ts';
import type { SignInStates } from './createSignInStates.ts';
import type { ExternalIdentityStore } from './externalIdentityStore.ts';
import { renderSignInErrorPage } from './renderSignInErrorPage.ts';
import { SignInFailure } from './signInFailure.ts';
import type { SignInProvider } from './signInProviders.ts';

export type SignInDeps = {
  // biome-ignore lint/suspicious/noExplicitAny: each provider has its own settings type; the flow never reads them
  providers: Array<SignInProvider<any>>;
  states: SignInStates;
  store: ExternalIdentityStore;
  identity: Pick<IdentityModule, 'issueSession' | 'evictUser' | 'getUser'>;
  settings: SettingsReader;
  /** Records an audit entry: in the sign-in's transaction when one is given, on its own otherwise. */
  recordAudit(db: CommonQueryMethods | null, record: AuditRecord): Promise<void>;
  /** `global.enable_login`: off refuses every new sign-in. */
  loginEnabled(): Promise<boolean>;
  logger: Logger;
};

/**
 * Binds a sign-in's state to the browser that started it. SameSite=Lax, not Strict: the callback is a
 * top-level navigation coming from the provider's site, on which a Strict cookie would not be sent.
 * Scoped to the sign-in paths, and gone after the callback.
 */
const stateCookie = 'orbital_sign_in';
const stateCookiePath = '/api/auth/';

/**
 * What the error page says: a sign-in's own failure, or a refusal of the platform's (the login switch,
 * a disabled or unconfirmed account, an outage); null for a fault, which the error handler answers.
 */
function failureOf(error: unknown): { reason: string; message: string; status: number } | null {
  if (error instanceof SignInFailure) {
    return { reason: error.reason, message: error.message, status: httpStatusFor(error.code) };
  }
  if (isAppError(error) && error.status < 500) {
    return { reason: error.code, message: error.message, status: error.status };
  }
  if (isAppError(error) && error.code === 'unavailable') {
    const unavailable = new SignInFailure('unavailable');
    return { reason: unavailable.reason, message: unavailable.message, status: 503 };
  }
  return null;
}

/** Only paths of the console are followed after sign-in, never another site. */
export function safeNext(next: string | null | undefined): string {
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

const startQuery = z.object({ next: z.string().max(2000).optional() });

export function signInRoutes(deps: SignInDeps): Route[] {
  const { logger } = deps;

  /** The console's address (`global.page_url`), where every sign-in ends; the gateway's own `/` if unreadable. */
  async function consoleUrl(path: string): Promise<string> {
    try {
      const base = parseUrl('global.page_url', (await deps.settings.string('global.page_url')) ?? '');
      return `${base.href.replace(/\/+$/, '')}${path}`;
    } catch {
      return path;
    }
  }

  async function requireLoginEnabled() {
    if (!(await deps.loginEnabled())) throw new SignInFailure('login_disabled');
  }

  /** Runs a start or callback; a failure becomes the error page with its status, logged with its reason. */
  async function answer(
    provider: SignInProvider,
    request: FastifyRequest,
    reply: FastifyReply,
    run: () => Promise<string>,
  ): Promise<string> {
    try {
      return await run();
    } catch (error) {
      const failure = failureOf(error);
      if (!failure) throw error;
      logger.warn(
        {
          event: 'auth.sso_failed',
          provider: provider.id,
          reason: failure.reason,
          address: request.ip,
          cause: error instanceof SignInFailure && error.cause instanceof Error ? error.cause.message : undefined,
        },
        'security: sign-in with an outside account failed',
      );
      await deps
        .recordAudit(null, {
          action: 'auth.sso_login',
          actor: { kind: 'anonymous', id: null, email: null, name: null },
          target: { kind: 'sign_in', id: provider.id },
          outcome: 'failure',
          reason: failure.reason,
          source_ip: request.ip,
          request_id: String(request.id),
          details: { provider: provider.id },
        })
        .catch((error: unknown) => logger.warn({ err: error }, 'could not record a failed sign-in in the audit log'));
      const settings = await provider.read().catch(() => null);
      const page = renderSignInErrorPage({
        provider: provider.label(settings),
        reason: failure.reason,
        message: failure.message,
        loginUrl: await consoleUrl('/login'),
      });
      reply.status(failure.status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page);
      return page;
    }
  }

  async function start(provider: SignInProvider, reply: FastifyReply, next?: string) {
    await requireLoginEnabled();
    const settings = await provider.read();
    if (!settings) throw new SignInFailure('not_configured');
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const started = await deps.states.start({ provider: provider.id, codeVerifier, nonce, next: safeNext(next) });
    const url = await provider.authorizeUrl(settings, {
      state: started.state,
      nonce,
      codeChallenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    });
    reply.setCookie(stateCookie, started.binding, {
      httpOnly: true,
      secure: true,
      sameSite: 'lax',
      path: stateCookiePath,
      maxAge: Math.ceil(deps.states.ttlMs / 1000),
    });
    reply.header('cache-control', 'no-store').redirect(url.href, 302);
    return url.href;
  }

  async function callback(provider: SignInProvider, request: FastifyRequest, reply: FastifyReply) {
    // The answer exactly as the provider wrote it (a parsed query would fold repeated parameters).
    const query = new URL(request.url, 'http://callback.invalid').searchParams;
    const binding = request.cookies?.[stateCookie];
    reply.clearCookie(stateCookie, { path: stateCookiePath, httpOnly: true, secure: true, sameSite: 'lax' });
    const state = query.get('state');
    if (!state) throw new SignInFailure('invalid_request');
    const signIn = await deps.states.take(state, binding);
    if (signIn.provider !== provider.id) throw new SignInFailure('invalid_state');
    const refused = query.get('error');
    if (refused !== null) {
      // The provider's own answer that it did not sign the person in: cancelled, refused, or its outage.
      const outage = refused === 'temporarily_unavailable' || refused === 'server_error';
      throw new SignInFailure(outage ? 'provider_unavailable' : 'access_denied', {
        cause: new Error(`the provider answered ${refused.slice(0, 100)}`),
      });
    }
    if (!query.get('code')) throw new SignInFailure('invalid_request');
    await requireLoginEnabled();
    const settings = await provider.read();
    if (!settings) throw new SignInFailure('not_configured');
    const account = await provider.account(settings, {
      query,
      state,
      nonce: signIn.nonce ?? '',
      codeVerifier: signIn.codeVerifier,
    });
    provider.admit(settings, account);
    const asUser = (user: { id: string; email: string; name: string }) => ({
      actor: { kind: 'user' as const, id: user.id, email: user.email, name: user.name },
      source_ip: request.ip,
      request_id: String(request.id),
    });
    const outcome = await deps.store.signIn(account, provider.mapping(settings, account), (tx, user, entry) =>
      deps.recordAudit(tx, { ...asUser(user), ...entry }),
    );
    if (outcome.accessChanged) await deps.identity.evictUser(outcome.user.id);
    if (outcome.unknownTeams.length > 0) {
      logger.warn(
        { event: 'auth.sso_unknown_teams', provider: provider.id, teams: outcome.unknownTeams },
        'the team mapping names teams that do not exist; they were skipped',
      );
    }
    if (outcome.keptLastAdmin) {
      logger.warn(
        { event: 'auth.sso_kept_last_admin', provider: provider.id, user_id: outcome.user.id },
        'the role mapping would demote the last global admin; the role was kept',
      );
    }
    const user = await deps.identity.getUser(outcome.user.id);
    if (!user) throw new SignInFailure('account_disabled');
    // The login switch, a disabled or unconfirmed account: checked once more where every session starts.
    await deps.identity.issueSession({ user, request, reply, method: provider.id });
    await deps.recordAudit(null, {
      ...asUser(outcome.user),
      action: 'auth.sso_login',
      target: { kind: 'user', id: user.id },
      details: { provider: provider.id, issuer: account.issuer, how: outcome.how },
    });
    logger.info(
      { event: 'auth.sso_succeeded', provider: provider.id, user_id: user.id, how: outcome.how, address: request.ip },
      'security: signed in with an outside account',
    );
    const target = await consoleUrl(signIn.next);
    reply.header('cache-control', 'no-store').redirect(target, 302);
    return target;
  }

  async function listed(provider: SignInProvider) {
    try {
      const settings = await provider.read();
      return settings ? { name: provider.label(settings), start_url: `/api/auth/${provider.id}/start` } : null;
    } catch (error) {
      if (!(error instanceof SignInFailure)) throw error;
      logger.warn(
        { event: 'auth.sso_misconfigured', provider: provider.id, problem: error.message },
        'a sign-in method is enabled but cannot work; it is not offered',
      );
      return null;
    }
  }

  const providerRoutes = deps.providers.flatMap((provider) => [
    defineRoute({
      method: 'GET',
      url: `/api/auth/${provider.id}/start`,
      summary: `Sign in with ${provider.id === 'oidc' ? 'single sign-on' : 'the code-hosting account'}: redirects to the provider`,
      tags: ['auth'],
      access: publicAccess,
      querystring: startQuery,
      responseShape: 'bare',
      response: z.string(),
      handler: ({ request, reply, query }) =>
        answer(provider, request, reply, () => start(provider, reply, query.next)),
    }),
    defineRoute({
      method: 'GET',
      url: `/api/auth/${provider.id}/callback`,
      summary: `Where the provider sends the browser back: signs in and redirects to the console (an HTML page on failure)`,
      tags: ['auth'],
      access: publicAccess,
      responseShape: 'bare',
      response: z.string(),
      handler: ({ request, reply }) => answer(provider, request, reply, () => callback(provider, request, reply)),
    }),
  ]);

  return [
    defineRoute({
      method: 'GET',
      url: '/api/auth/methods',
      summary: 'The ways to sign in that are on, for the login page',
      tags: ['auth'],
      access: publicAccess,
      response: signInMethods,
      async handler(): Promise<SignInMethods> {
        const loginEnabled = await deps.loginEnabled();
        const byId = async (id: string) => {
          const provider = deps.providers.find((p) => p.id === id);
          return loginEnabled && provider ? listed(provider) : null;
        };
        const [repohost, oidcMethod] = await Promise.all([byId('repohost'), byId('oidc')]);
        return { login_enabled: loginEnabled, password: loginEnabled, repohost, oidc: oidcMethod };
      },
    }),
    ...providerRoutes,
  ];
}
