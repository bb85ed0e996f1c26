import { Agent, request } from 'node:http';
import { Readable } from 'node:stream';

/** One pool of kept-alive connections for every client of the run, like fetch's own. */
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/**
 * `fetch` for the bench's MCP clients over Node's http module instead of undici's fetch, which costs
 * the bench process more CPU per call than some of the gateways it measures: on two shared cores
 * the clients' own work then bounds every gateway alike and hides their differences. Every gateway
 * is called through it (same client for all); the SDK client above it is unchanged. Enough of fetch
 * for the SDK's HTTP transport: method, headers, a string body, an abort signal, and a response
 * whose body is a web stream (JSON or an event stream).
 */
export function nodeHttpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : new URL(input.url);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
    return Promise.reject(new TypeError('nodeHttpFetch sends string bodies only'));
  }
  const body = init.body ?? undefined;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return send(url, init.method ?? 'GET', headers, body, init.signal ?? undefined, true);
}

/**
 * One request; `retry` once more when it fails, before any answer, with a reset on a kept-alive
 * connection it reused: the server closed that idle connection as the request left, so the request
 * never reached it and sending it again on a fresh connection is safe (the pattern Node's
 * documentation gives).
 */
function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined,
  retry: boolean,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    let answered = false;
    const outgoing = request(url, { method, headers, agent, ...(signal ? { signal } : {}) }, (res) => {
      answered = true;
      const responseHeaders = new Headers();
      const raw = res.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i] as string, raw[i + 1] as string);
      const status = res.statusCode ?? 0;
      // A Response refuses a body for these statuses.
      const noBody = status === 204 || status === 205 || status === 304;
      if (noBody) res.resume();
      resolve(
        new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
          status,
          statusText: res.statusMessage ?? '',
          headers: responseHeaders,
        }),
      );
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (retry && !answered && outgoing.reusedSocket && error.code === 'ECONNRESET') {
        send(url, method, headers, body, signal, false).then(resolve, reject);
      } else reject(error);
    });
    outgoing.end(body);
  });
}
