import { createHash } from 'node:crypto';
import { type AuthInfo, OAuthError, OAuthErrorCode, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { introspectionResponse } from '@orbital/contracts';

/** Who a verified token speaks for; carried in AuthInfo.extra. */
export type TokenIdentity = { userId: string; teamId: string; tokenKind: 'oauth' | 'personal' };

export function identityOf(auth: AuthInfo): TokenIdentity {
  return auth.extra as TokenIdentity;
}

/**
 * The credential the satellite presents to the introspection endpoint: its registry API key, read
 * at every call so a key replaced by re-registration is used at once (the backend link's
 * `introspectionCredential`).
 */
export type IntrospectionCredential = {
  /** The API key to send; null while the satellite is not registered yet. */
  current(): string | null;
  /** The backend refused `key` (401): resolves true when a new key is there to retry with once. */
  refused?(key: string): Promise<boolean>;
};

export type IntrospectionVerifierOptions = {
  introspectionUrl: URL;
  credential: IntrospectionCredential;
  /** This satellite's /mcp URL: an OAuth token issued for another resource is refused (RFC 8707). */
  resource: URL;
  /** A team satellite accepts only its team's tokens; null for a global satellite. */
  teamId: string | null;
  cacheTtlMs: number;
  maxEntries?: number;
  requestTimeoutMs?: number;
  now?: () => number;
  fetch?: typeof fetch;
};

const comparable = (url: string) => url.replace(/#.*$/, '').replace(/\/$/, '');

/**
 * The SDK's OAuthTokenVerifier over RFC 7662 introspection at the backend, with a short cache: each
 * answer (active or not) is trusted for `cacheTtlMs` (never past the token's expiry), so a revoked
 * token is refused at the latest `cacheTtlMs` after its revocation, and a busy client costs one
 * introspection per period, not one per message. Concurrent checks of one token share one request.
 * Keys are SHA-256 of the token, so the cache holds no usable token.
 */
export function createIntrospectionVerifier(options: IntrospectionVerifierOptions): OAuthTokenVerifier & {
  size(): number;
} {
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? fetch;
  const maxEntries = options.maxEntries ?? 10000;
  const cache = new Map<string, { until: number; auth: AuthInfo | null }>();
  const inFlight = new Map<string, Promise<AuthInfo | null>>();

  function remember(key: string, auth: AuthInfo | null) {
    const expiresAtMs = auth?.expiresAt === undefined ? Number.POSITIVE_INFINITY : auth.expiresAt * 1000;
    if (cache.size >= maxEntries) {
      // Oldest first: Map keeps insertion order.
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(key, { until: Math.min(now() + options.cacheTtlMs, expiresAtMs), auth });
  }

  async function ask(token: string, key: string): Promise<Response> {
    try {
      return await doFetch(options.introspectionUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal: AbortSignal.timeout(options.requestTimeoutMs ?? 5000),
      });
    } catch (error) {
      throw new OAuthError(
        OAuthErrorCode.ServerError,
        `The authorization server cannot be reached: ${(error as Error).name}`,
      );
    }
  }

  const currentKey = () => {
    const key = options.credential.current();
    // Not the client's fault: the satellite has no API key until it registers with the backend.
    if (!key) throw new OAuthError(OAuthErrorCode.ServerError, 'The satellite is not registered with the backend yet');
    return key;
  };

  async function introspect(token: string): Promise<AuthInfo | null> {
    const key = currentKey();
    let response = await ask(token, key);
    // A revoked or replaced key: the backend link re-registers when it can, then one retry.
    if (response.status === 401 && (await options.credential.refused?.(key))) response = await ask(token, currentKey());
    if (!response.ok) {
      // Not the client's fault, and not an answer about the token: nothing is cached.
      throw new OAuthError(OAuthErrorCode.ServerError, `Token introspection failed with HTTP ${response.status}`);
    }
    const parsed = introspectionResponse.safeParse(await response.json().catch(() => null));
    if (!parsed.success)
      throw new OAuthError(OAuthErrorCode.ServerError, 'Token introspection answered in an unknown shape');
    const answer = parsed.data;
    if (!answer.active) return null;
    if (answer.aud !== undefined && comparable(answer.aud) !== comparable(options.resource.href)) return null;
    if (options.teamId !== null && answer.team_id !== options.teamId) return null;
    const identity: TokenIdentity = { userId: answer.sub, teamId: answer.team_id, tokenKind: answer.token_kind };
    return {
      token,
      clientId: answer.client_id,
      scopes: answer.scope.split(' ').filter(Boolean),
      expiresAt: answer.exp,
      ...(answer.aud ? { resource: new URL(answer.aud) } : {}),
      extra: identity,
    };
  }

  return {
    size: () => cache.size,
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const key = createHash('sha256').update(token).digest('hex');
      const cached = cache.get(key);
      let auth: AuthInfo | null;
      if (cached && cached.until > now()) {
        auth = cached.auth;
      } else {
        if (cached) cache.delete(key);
        let pending = inFlight.get(key);
        if (!pending) {
          pending = introspect(token).then((result) => {
            remember(key, result);
            return result;
          });
          inFlight.set(key, pending);
          pending.finally(() => inFlight.delete(key)).catch(() => {});
        }
        auth = await pending;
      }
      if (!auth)
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is not active, or not for this satellite');
      return auth;
    },
  };
}
