import { describe, expect, it } from 'vitest';
import { fastifyTimeouts, httpTimeoutsEnv, httpTimeoutsProblem } from './httpTimeouts.ts';

describe('HTTP timeouts', () => {
  it('default to 10 s for the head, 30 s for the request and 72 s of keep-alive, checked every second', () => {
    expect(fastifyTimeouts(httpTimeoutsEnv.parse({}))).toEqual({
      requestTimeout: 30_000,
      keepAliveTimeout: 72_000,
      http: { headersTimeout: 10_000, connectionsCheckingInterval: 1000 },
    });
  });

  it('check short limits often enough to cut a client close to its limit', () => {
    const short = httpTimeoutsEnv.parse({ HTTP_HEADERS_TIMEOUT_MS: '400', HTTP_REQUEST_TIMEOUT_MS: '800' });
    expect(fastifyTimeouts(short).http.connectionsCheckingInterval).toBe(100);
  });

  it('refuse a head limit longer than the request limit, and limits of no time', () => {
    expect(
      httpTimeoutsProblem(httpTimeoutsEnv.parse({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })),
    ).toBe('must not be longer than HTTP_REQUEST_TIMEOUT_MS');
    expect(httpTimeoutsEnv.safeParse({ HTTP_REQUEST_TIMEOUT_MS: '0' }).success).toBe(false);
  });
});
