import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/** The browser's side of a sign-in with an outside account, driven through inject(). */
export type StartedSignIn = { authorizeUrl: URL; binding: string };

/** Writes settings as the admin does on the settings page, one PUT each. */
export async function configure(
  call: (method: 'PUT', url: string, payload: unknown) => Promise<{ statusCode: number; body: string }>,
  values: Record<string, string>,
) {
  for (const [key, value] of Object.entries(values)) {
    const response = await call('PUT', `/api/settings/${key}`, { value });
    expect(response.statusCode, `${key}: ${response.body}`).toBe(200);
  }
}

/** GET .../start: a 302 to the provider and the cookie that binds the state to this browser. */
export async function startSignIn(app: FastifyInstance, provider: 'repohost' | 'oidc', next?: string) {
  const response = await app.inject({
    method: 'GET',
    url: `/api/auth/${provider}/start${next ? `?next=${encodeURIComponent(next)}` : ''}`,
  });
  expect(response.statusCode, response.body).toBe(302);
  const cookie = response.cookies.find((c) => c.name === 'orbital_sign_in');
  expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/api/auth/' });
  return { authorizeUrl: new URL(response.headers.location as string), binding: cookie?.value as string };
}

/** The callback as the browser makes it: the provider's redirect, with (or without) the binding cookie. */
export function callBack(app: FastifyInstance, answer: URL, binding?: string) {
  return app.inject({
    method: 'GET',
    url: `${answer.pathname}${answer.search}`,
    ...(binding ? { cookies: { orbital_sign_in: binding } } : {}),
  });
}

/** A failed callback's page: its status and the reason's code shown on it. */
export function expectFailure(
  response: { statusCode: number; body: string; headers: Record<string, unknown> },
  status: number,
  reason: string,
) {
  expect(response.headers['content-type']).toMatch(/^text\/html/);
  expect({ status: response.statusCode, reason: /<code>([a-z_]+)<\/code>/.exec(response.body)?.[1] }).toEqual({
    status,
    reason,
  });
}

/** A successful callback: the redirect to the console and the session it started. */
export function expectSignedIn(response: {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
  cookies: Array<{ name: string; value: string }>;
}) {
  expect(response.statusCode, response.body).toBe(302);
  const session = response.cookies.find((c) => c.name === 'session');
  expect(session?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return { location: response.headers.location as string, token: session?.value as string };
}

/**
 * A finished sign-in replayed: its callback again is refused (the state was used), and its code with a
 * fresh state of this browser is refused by the provider.
 */
export async function expectReplaysRefused(
  app: FastifyInstance,
  provider: 'repohost' | 'oidc',
  first: { answer: URL; started: StartedSignIn },
) {
  expectFailure(await callBack(app, first.answer, first.started.binding), 400, 'invalid_state');
  const fresh = await startSignIn(app, provider);
  const replayed = new URL(first.answer);
  replayed.searchParams.set('state', fresh.authorizeUrl.searchParams.get('state') as string);
  expectFailure(await callBack(app, replayed, fresh.binding), 401, 'code_rejected');
}
