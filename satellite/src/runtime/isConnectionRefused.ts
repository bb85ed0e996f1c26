import { SdkHttpError } from '@modelcontextprotocol/client';

const neverSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * A server answered 404 to a message posted into a session it no longer has (an SSE server restarted
 * between two calls): it never ran the request. Thrown by the satellite's own fetch for SSE posts, whose
 * SDK transport reports a failed post only as text.
 */
export class SessionNotFoundError extends Error {
  constructor(url: string) {
    super(`the server no longer knows this session (HTTP 404 from ${url})`);
    this.name = 'SessionNotFoundError';
  }
}

/**
 * True only when the error proves the request never reached the server: the connection was refused
 * or the name did not resolve, or the server answered 404 for a session it no longer has (it did
 * not run the request). Only such calls may be retried; a reset or a timeout may follow a tool that ran.
 */
export function isConnectionRefused(error: unknown): boolean {
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && cause; depth++) {
    if (cause instanceof SessionNotFoundError) return true;
    if (cause instanceof SdkHttpError && (cause.data as { status?: unknown } | undefined)?.status === 404) return true;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && neverSentCodes.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
