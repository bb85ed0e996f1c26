import type { AddressPolicy } from './createAddressPolicy.ts';
import { fetchGuarded } from './fetchGuarded.ts';

/** The part of `fetch` that libraries taking a fetch function call (the MCP SDK's OAuth helpers do). */
export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export type GuardedFetchFactoryOptions = {
  policy: AddressPolicy;
  timeoutMs: number;
  maxBytes: number;
  allowHttp?: boolean;
};

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

function bodyOf(body: RequestInit['body']): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('a guarded request sends a string, form parameters or bytes, not a stream or form data');
}

/**
 * A `fetch` whose every request goes through `fetchGuarded`: the address policy checked on the
 * address connected to, no redirect followed, a time and a size limit. For handing to a library that
 * takes a fetch function, so a URL from outside the platform never reaches the network unguarded.
 * GET and POST only; a URL-encoded form body is sent with its content type, as fetch would.
 */
export function createGuardedFetch(options: GuardedFetchFactoryOptions): GuardedFetch {
  return async (url, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new TypeError(`a guarded request is GET or POST, not ${method}`);
    const headers = headersOf(init);
    if (init?.body instanceof URLSearchParams && !headers['content-type']) {
      headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    }
    const body = bodyOf(init?.body);
    const answer = await fetchGuarded(new URL(url), {
      policy: options.policy,
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes,
      ...(options.allowHttp !== undefined ? { allowHttp: options.allowHttp } : {}),
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
    }
    // A status fetch cannot build a Response with (1xx, or 204/304 with a body) is not an answer to use.
    const noBody = answer.status === 204 || answer.status === 304;
    return new Response(noBody ? null : new Uint8Array(answer.body), {
      status: answer.status,
      headers: responseHeaders,
    });
  };
}
