import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';

const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
]);

/**
 * True when a connection attempt failed because the server could not be reached at all (refused, name
 * not resolved, reset, silent until the timeout), as opposed to a server that answered in a way the
 * client did not expect. Only the second says anything about which protocol generation it speaks.
 */
export function isServerUnreachable(error: unknown): boolean {
  let cause: unknown = error;
  for (let depth = 0; depth < 6 && cause; depth++) {
    if (cause instanceof SdkError && cause.code === SdkErrorCode.RequestTimeout) return true;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && networkCodes.has(code)) return true;
    // The SSE transport keeps only the text of the fetch failure.
    const message = (cause as { message?: unknown }).message;
    if (typeof message === 'string' && [...networkCodes].some((c) => message.includes(c))) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
