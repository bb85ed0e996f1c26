import { createHash } from 'node:crypto';
import type { Logger } from '@orbital/logger';
import * as oidc from 'openid-client';
import type { ExternalAccount } from './externalAccount.ts';
import { isAcceptableProviderUrl, type OidcSettings } from './readSignInSettings.ts';
import { SignInFailure } from './signInFailure.ts';

/** An `email_verified` as providers send it: a boolean, or (some) the text "true". */
const isTrue = (value: unknown) => value === true || value === 'true';

/**
 * Whether the provider vouches for the address. OpenID's `email_verified`; Entra ID sends none, and
 * instead `xms_edov` (the address's domain is verified by the tenant's owner) when the optional claim is
 * configured, which we take as the same promise.
 */
export function emailVerifiedOf(claims: Record<string, unknown>): boolean {
  return isTrue(claims.email_verified) || isTrue(claims.xms_edov);
}

function isOutage(error: unknown): boolean {
  if (error instanceof TypeError) return true; // fetch failed: refused, reset, DNS
  if (error instanceof DOMException || (error as Error)?.name === 'TimeoutError') return true;
  if (error instanceof oidc.ResponseBodyError) return error.status >= 500;
  if (error instanceof oidc.ClientError && error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM') {
    return error.cause instanceof Response && error.cause.status >= 500;
  }
  return false;
}

/** A failure of the library or of the provider, as a reason the person can be told. */
export function failureOf(error: unknown, during: 'discovery' | 'callback'): SignInFailure {
  if (error instanceof SignInFailure) return error;
  if (isOutage(error)) return new SignInFailure('provider_unavailable', { cause: error });
  if (during === 'discovery') return new SignInFailure('misconfigured', { cause: error });
  if (error instanceof oidc.AuthorizationResponseError) {
    const transient = ['temporarily_unavailable', 'server_error'].includes(error.error);
    return new SignInFailure(transient ? 'provider_unavailable' : 'access_denied', { cause: error });
  }
  if (error instanceof oidc.ResponseBodyError) {
    const clientProblem = ['invalid_client', 'unauthorized_client'].includes(error.error);
    return new SignInFailure(clientProblem ? 'misconfigured' : 'code_rejected', { cause: error });
  }
  if (error instanceof oidc.WWWAuthenticateChallengeError) return new SignInFailure('misconfigured', { cause: error });
  return new SignInFailure('token_invalid', { cause: error });
}

type Discovered = { key: string; config: Promise<oidc.Configuration>; at: number };

/**
 * OpenID Connect with openid-client: discovery (kept per issuer, client and secret for `cacheMs`, so a
 * changed setting takes effect at the next sign-in; a failed discovery is not kept), the authorization
 * request with PKCE (S256), state and nonce, and the callback: the code exchange, the ID token's
 * signature, issuer, audience, expiry and nonce (all checked by the library), then the UserInfo
 * endpoint's claims beneath the ID token's.
 */
export function createOidcClients(options: { timeoutMs: number; cacheMs: number; logger: Logger; now: () => number }) {
  let discovered: Discovered | null = null;

  function configuration(settings: OidcSettings): Promise<oidc.Configuration> {
    const key = [
      settings.issuer.href,
      settings.clientId,
      createHash('sha256').update(settings.clientSecret).digest('hex'),
    ]
      .map((part) => encodeURIComponent(part))
      .join(' ');
    if (discovered && discovered.key === key && options.now() - discovered.at < options.cacheMs) {
      return discovered.config;
    }
    const config = oidc
      .discovery(settings.issuer, settings.clientId, settings.clientSecret, undefined, {
        timeout: Math.ceil(options.timeoutMs / 1000),
        execute: [
          // http only where isAcceptableProviderUrl allowed it: this machine's loopback.
          ...(settings.issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : []),
          // The ID token's signature is checked against the provider's published keys too, not only
          // trusted because it came over TLS from the token endpoint (which OpenID Connect allows):
          // a token altered on the way, by a proxy that ends TLS or on a plain loopback, is refused.
          oidc.enableNonRepudiationChecks,
        ],
      })
      .then((config) => {
        const metadata = config.serverMetadata();
        for (const url of [metadata.authorization_endpoint, metadata.token_endpoint, metadata.userinfo_endpoint]) {
          if (url && !isAcceptableProviderUrl(new URL(url))) {
            throw new SignInFailure('misconfigured', {
              message: 'The provider names an endpoint that is not https; an administrator has to fix the provider.',
            });
          }
        }
        return config;
      });
    const entry = { key, config, at: options.now() };
    discovered = entry;
    config.catch(() => {
      if (discovered === entry) discovered = null;
    });
    return config;
  }

  return {
    async authorizeUrl(
      settings: OidcSettings,
      request: { state: string; nonce: string; codeChallenge: string },
    ): Promise<URL> {
      try {
        const config = await configuration(settings);
        return oidc.buildAuthorizationUrl(config, {
          redirect_uri: settings.callbackUrl.href,
          scope: settings.scopes,
          state: request.state,
          nonce: request.nonce,
          code_challenge: request.codeChallenge,
          code_challenge_method: 'S256',
        });
      } catch (error) {
        throw failureOf(error, 'discovery');
      }
    },

    /** The callback: redeems the code and returns the verified account with every claim. */
    async account(
      settings: OidcSettings,
      callback: { query: URLSearchParams; state: string; nonce: string; codeVerifier: string },
    ): Promise<ExternalAccount> {
      let config: oidc.Configuration;
      try {
        config = await configuration(settings);
      } catch (error) {
        throw failureOf(error, 'discovery');
      }
      try {
        // The URL the provider sent the browser to: the registered callback with the answer's parameters.
        const current = new URL(settings.callbackUrl);
        current.search = callback.query.toString();
        const tokens = await oidc.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: callback.codeVerifier,
          expectedState: callback.state,
          expectedNonce: callback.nonce,
          idTokenExpected: true,
        });
        const idClaims = tokens.claims();
        if (!idClaims) throw new SignInFailure('token_invalid');
        let claims: Record<string, unknown> = { ...idClaims };
        if (config.serverMetadata().userinfo_endpoint) {
          const userInfo = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
          // The signed ID token's claims win over the UserInfo answer's.
          claims = { ...userInfo, ...idClaims };
        }
        const email = typeof claims.email === 'string' ? claims.email : null;
        const name = [claims.name, claims.preferred_username, email?.split('@')[0]].find(
          (value): value is string => typeof value === 'string' && value.trim() !== '',
        );
        return {
          provider: 'oidc',
          issuer: idClaims.iss,
          subject: idClaims.sub,
          email,
          emailVerified: emailVerifiedOf(claims),
          name: (name ?? idClaims.sub).trim(),
          claims,
        };
      } catch (error) {
        throw failureOf(error, 'callback');
      }
    },
  };
}

export type OidcClients = ReturnType<typeof createOidcClients>;
