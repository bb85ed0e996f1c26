import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const neverSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * True only when the error proves the request never reached the server: the connection was refused
 * or the name did not resolve, or the server answered 404 for a session it no longer has (it did
 * not run the request). Only such calls may be retried; a reset or a timeout may follow a tool that ran.
 */
export function isConnectionRefused(error: unknown): boolean {
  if (error instanceof StreamableHTTPError && error.code === 404) return true;
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && cause; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && neverSentCodes.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
