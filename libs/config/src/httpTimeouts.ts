import { z } from 'zod';

const milliseconds = z.coerce.number().int().min(100).max(3_600_000);

/**
 * How long an HTTP client may take to send a request, for the processes that listen (gateway-api, the
 * satellite). Node cuts a client that has not sent its whole head within HTTP_HEADERS_TIMEOUT_MS, or its
 * whole request (head and body) within HTTP_REQUEST_TIMEOUT_MS; without both, a client trickling a byte at
 * a time holds its connection (a file descriptor and a parser) forever. Neither limit applies once the
 * request is in: a response may take as long as it needs (a long poll, an event stream, a slow tool call).
 * HTTP_KEEP_ALIVE_TIMEOUT_MS is how long an idle kept-alive connection waits for its next request; behind
 * a load balancer it must be longer than the balancer's own idle timeout.
 */
export const httpTimeoutsEnv = z.object({
  HTTP_HEADERS_TIMEOUT_MS: milliseconds.default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: milliseconds.default(30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: milliseconds.default(72_000),
});

export type HttpTimeoutsEnv = z.infer<typeof httpTimeoutsEnv>;

/** Node refuses a head limit longer than the request's: the problem in words, or null. */
export function httpTimeoutsProblem(config: HttpTimeoutsEnv): string | null {
  return config.HTTP_HEADERS_TIMEOUT_MS > config.HTTP_REQUEST_TIMEOUT_MS
    ? 'must not be longer than HTTP_REQUEST_TIMEOUT_MS'
    : null;
}

/**
 * The limits as Fastify's server options. Node looks for expired clients every
 * `connectionsCheckingInterval` (30 s by default, which would let a trickling client stay up to 30 s past
 * its limit): here a quarter of the head limit, at most a second, so a client is cut within about a second
 * of its limit.
 */
export function fastifyTimeouts(config: HttpTimeoutsEnv) {
  return {
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    http: {
      headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(config.HTTP_HEADERS_TIMEOUT_MS / 4))),
    },
  };
}
