import { type AuthInfo, OAuthError, OAuthErrorCode, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The SDK's requireBearerAuth, for Fastify (the SDK's is Express middleware): the bearer token is
 * verified, its scopes and expiry checked, and a failure answered 401 (403 for a missing scope) with
 * `WWW-Authenticate: Bearer ... resource_metadata="..."`, which is how an MCP client finds the
 * protected resource metadata and from it the authorization server. An unreachable authorization
 * server is 503: the client did nothing wrong and should retry, not re-authenticate.
 */
export function createBearerAuthenticator(options: {
  verifier: OAuthTokenVerifier;
  resourceMetadataUrl: string;
  requiredScopes: string[];
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  const challenge = (error: OAuthError) => {
    const description = error.message.replace(/["\\]/g, '');
    let header = `Bearer error="${error.code}", error_description="${description}"`;
    if (options.requiredScopes.length) header += `, scope="${options.requiredScopes.join(' ')}"`;
    return `${header}, resource_metadata="${options.resourceMetadataUrl}"`;
  };

  /** The verified token, or undefined once the refusal has been sent. */
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<AuthInfo | undefined> {
    try {
      const header = request.headers.authorization;
      if (!header) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Missing Authorization header');
      const match = /^Bearer ([^\s]+)$/i.exec(header);
      if (!match?.[1])
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          "Invalid Authorization header format, expected 'Bearer TOKEN'",
        );
      const auth = await options.verifier.verifyAccessToken(match[1]);
      if (!options.requiredScopes.every((scope) => auth.scopes.includes(scope))) {
        throw new OAuthError(OAuthErrorCode.InsufficientScope, 'Insufficient scope');
      }
      if (typeof auth.expiresAt !== 'number' || auth.expiresAt * 1000 <= now()) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'Token has expired');
      }
      return auth;
    } catch (error) {
      const code = error instanceof OAuthError ? error.code : undefined;
      if (error instanceof OAuthError && code === OAuthErrorCode.InvalidToken) {
        await reply.status(401).header('www-authenticate', challenge(error)).send(error.toResponseObject());
      } else if (error instanceof OAuthError && code === OAuthErrorCode.InsufficientScope) {
        await reply.status(403).header('www-authenticate', challenge(error)).send(error.toResponseObject());
      } else if (error instanceof OAuthError && code === OAuthErrorCode.ServerError) {
        request.log.warn({ err: error }, 'token verification unavailable');
        await reply.status(503).header('retry-after', '5').send(error.toResponseObject());
      } else {
        request.log.error({ err: error }, 'token verification failed');
        const failure =
          error instanceof OAuthError ? error : new OAuthError(OAuthErrorCode.ServerError, 'Internal Server Error');
        await reply.status(500).send(failure.toResponseObject());
      }
      return undefined;
    }
  };
}

export type BearerAuthenticator = ReturnType<typeof createBearerAuthenticator>;
