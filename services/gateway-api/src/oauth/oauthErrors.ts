import { OAuthError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { isAppError } from '@orbital/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The OAuth endpoints answer errors in the RFC 6749 shape (`{error, error_description}`), which OAuth
 * clients parse, not in the platform's envelope. The error classes are the MCP SDK's, so the codes
 * are exactly the ones its client understands. `invalid_client` is 401 where the client authenticates
 * (RFC 6749 section 5.2: token, revocation) and 400 at the authorization endpoint, where it does not.
 */
export function sendOAuthError(reply: FastifyReply, error: OAuthError, invalidClientStatus: 400 | 401 = 401) {
  const status = error instanceof ServerError ? 500 : error.errorCode === 'invalid_client' ? invalidClientStatus : 400;
  return reply
    .status(status)
    .header('cache-control', 'no-store')
    .type('application/json')
    .send(error.toResponseObject());
}

/**
 * Runs an OAuth endpoint's body: OAuth errors become RFC 6749 answers, platform errors (401 of the
 * access check, 503 of an unreachable database) keep the envelope the error handler writes, and
 * anything unexpected is logged and answered as `server_error` without its message.
 */
export async function answerOAuth<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  run: () => Promise<T>,
  options: { invalidClientStatus?: 400 | 401 } = {},
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    // Once the reply is sent, registerRoute returns it as it is; the value is never read.
    if (error instanceof OAuthError) return sendOAuthError(reply, error, options.invalidClientStatus) as never;
    if (isAppError(error)) throw error;
    request.log.error({ err: error }, 'OAuth endpoint failed');
    return sendOAuthError(reply, new ServerError('Internal server error')) as never;
  }
}
