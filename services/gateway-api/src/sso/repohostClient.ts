import type { Logger } from '@orbital/logger';
import type { ExternalAccount } from './externalAccount.ts';
import type { RepohostSettings } from './readSignInSettings.ts';
import { SignInFailure } from './signInFailure.ts';

/**
 * The code-hosting provider's OAuth web flow, as GitHub (and GitHub Enterprise) speak it: the authorize
 * page on the web address, the code exchange at /login/oauth/access_token, then the REST API's /user and
 * /user/emails. Written against the documented endpoints rather than an OpenID library because GitHub is
 * not an OpenID provider and answers a refused code with HTTP 200 and an `error` field, which generic
 * OAuth clients take for a malformed answer.
 */

/** A relative path under a base that may itself have a path (GitHub Enterprise's API is under /api/v3). */
const under = (base: URL, path: string) => new URL(path, base.href.endsWith('/') ? base.href : `${base.href}/`);

export function repohostAuthorizeUrl(
  settings: RepohostSettings,
  request: { state: string; codeChallenge: string },
): URL {
  const url = under(settings.webUrl, 'login/oauth/authorize');
  url.search = new URLSearchParams({
    client_id: settings.clientId,
    redirect_uri: settings.callbackUrl.href,
    scope: settings.scope,
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
  }).toString();
  return url;
}

/** Codes the token endpoint answers that mean the OAuth application's own settings are wrong. */
const configurationErrors = new Set(['incorrect_client_credentials', 'redirect_uri_mismatch', 'application_suspended']);

async function providerCall(what: string, run: () => Promise<Response>): Promise<Response> {
  let response: Response;
  try {
    response = await run();
  } catch (cause) {
    throw new SignInFailure('provider_unavailable', { cause: new Error(`${what}: ${(cause as Error).message}`) });
  }
  if (response.status >= 500) {
    throw new SignInFailure('provider_unavailable', { cause: new Error(`${what} answered ${response.status}`) });
  }
  return response;
}

async function jsonOf(what: string, response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch (cause) {
    throw new SignInFailure('provider_unavailable', { cause: new Error(`${what} did not answer JSON: ${cause}`) });
  }
}

export type RepohostClientOptions = { timeoutMs: number; logger: Logger };

/** Redeems the code (with the PKCE verifier) and reads who signed in: id, name and verified primary address. */
export async function fetchRepohostAccount(
  settings: RepohostSettings,
  callback: { code: string; codeVerifier: string },
  options: RepohostClientOptions,
): Promise<ExternalAccount> {
  const signal = () => AbortSignal.timeout(options.timeoutMs);
  const exchange = await providerCall('the token endpoint', () =>
    fetch(under(settings.webUrl, 'login/oauth/access_token'), {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: settings.clientId,
        client_secret: settings.clientSecret,
        code: callback.code,
        redirect_uri: settings.callbackUrl.href,
        code_verifier: callback.codeVerifier,
      }),
      signal: signal(),
      redirect: 'manual',
    }),
  );
  const token = (await jsonOf('the token endpoint', exchange)) as { access_token?: unknown; error?: unknown };
  if (typeof token.access_token !== 'string' || token.access_token === '') {
    const error = typeof token.error === 'string' ? token.error : `status ${exchange.status}`;
    options.logger.warn({ event: 'auth.sso_code_refused', provider: 'repohost', error }, 'the provider refused a code');
    throw new SignInFailure(configurationErrors.has(error) ? 'misconfigured' : 'code_rejected');
  }
  const api = (path: string) =>
    providerCall(`the API's ${path}`, () =>
      fetch(under(settings.apiUrl, path), {
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${token.access_token}`,
          'x-github-api-version': '2022-11-28',
          // GitHub's API refuses requests without a User-Agent.
          'user-agent': 'Orbital',
        },
        signal: signal(),
        redirect: 'manual',
      }),
    );
  const userResponse = await api('user');
  if (!userResponse.ok) {
    throw new SignInFailure('provider_unavailable', { cause: new Error(`/user answered ${userResponse.status}`) });
  }
  const user = (await jsonOf("the API's user", userResponse)) as { id?: unknown; login?: unknown; name?: unknown };
  if (typeof user.id !== 'number' && typeof user.id !== 'string') {
    throw new SignInFailure('provider_unavailable', { cause: new Error('/user named no id') });
  }
  const login = typeof user.login === 'string' ? user.login : String(user.id);
  return {
    provider: 'repohost',
    issuer: settings.webUrl.origin,
    subject: String(user.id),
    ...(await primaryEmail(api, options.logger)),
    name: typeof user.name === 'string' && user.name.trim() !== '' ? user.name.trim() : login,
    claims: { login },
  };
}

/**
 * The account's primary address, if GitHub says it is verified. Without the `user:email` scope the
 * endpoint refuses; an account already linked still signs in, anyone else is told why not.
 */
async function primaryEmail(
  api: (path: string) => Promise<Response>,
  logger: Logger,
): Promise<{ email: string | null; emailVerified: boolean }> {
  const response = await api('user/emails');
  if (!response.ok) {
    logger.warn(
      { event: 'auth.sso_emails_unreadable', provider: 'repohost', status_code: response.status },
      'could not read the account e-mail addresses (does the scope include user:email?)',
    );
    return { email: null, emailVerified: false };
  }
  const emails = await jsonOf("the API's user/emails", response);
  const primary = Array.isArray(emails)
    ? (emails as Array<{ email?: unknown; primary?: unknown; verified?: unknown }>).find((e) => e.primary === true)
    : undefined;
  if (!primary || typeof primary.email !== 'string') return { email: null, emailVerified: false };
  return { email: primary.email, emailVerified: primary.verified === true };
}
