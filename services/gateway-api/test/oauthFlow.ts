import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { bearer, type Session } from './identityStack.ts';

/** Helpers that speak the OAuth endpoints as a client, a browser and a satellite would. */

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const form = (fields: Record<string, string | undefined>) => {
  const defined = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return new URLSearchParams(defined).toString();
};

export async function postForm(
  app: FastifyInstance,
  url: string,
  fields: Record<string, string | undefined>,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form(fields),
  });
}

export const redirectUri = 'http://127.0.0.1:7777/callback';

export async function registerClient(app: FastifyInstance, metadata: Record<string, unknown> = {}) {
  const response = await app.inject({
    method: 'POST',
    url: '/register',
    payload: {
      client_name: 'Test client',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    },
  });
  if (response.statusCode !== 201) throw new Error(`registration failed: ${response.body}`);
  return response.json() as { client_id: string; client_secret?: string };
}

export type AuthorizeOptions = {
  clientId: string;
  teamId: string;
  challenge: string;
  redirect?: string;
  resource?: string;
  state?: string;
  decision?: 'approve' | 'deny';
  extra?: Record<string, string>;
};

/** The consent form's answer, as the browser of a logged-in user posts it: the redirect's URL. */
export async function approve(app: FastifyInstance, session: Session, options: AuthorizeOptions): Promise<URL> {
  const response = await postForm(
    app,
    '/authorize',
    {
      client_id: options.clientId,
      redirect_uri: options.redirect ?? redirectUri,
      response_type: 'code',
      code_challenge: options.challenge,
      code_challenge_method: 'S256',
      state: options.state ?? 'st4te',
      resource: options.resource,
      team_id: options.teamId,
      decision: options.decision ?? 'approve',
      ...options.extra,
    },
    { cookie: `session=${session.cookie}` },
  );
  if (response.statusCode !== 302) throw new Error(`authorize answered ${response.statusCode}: ${response.body}`);
  return new URL(response.headers.location as string);
}

export async function exchangeCode(
  app: FastifyInstance,
  fields: { clientId: string; code: string; verifier: string; redirect?: string; secret?: string; resource?: string },
) {
  return postForm(app, '/token', {
    grant_type: 'authorization_code',
    client_id: fields.clientId,
    client_secret: fields.secret,
    code: fields.code,
    code_verifier: fields.verifier,
    redirect_uri: fields.redirect ?? redirectUri,
    resource: fields.resource,
  });
}

/** Introspection as a satellite does it, with its API key. */
export async function introspect(app: FastifyInstance, token: string, apiKey: string) {
  const response = await postForm(app, '/introspect', { token }, { authorization: `Bearer ${apiKey}` });
  if (response.statusCode !== 200) throw new Error(`introspection answered ${response.statusCode}: ${response.body}`);
  return response.json() as Record<string, unknown> & { active: boolean };
}

/** The PKCE part of an authorization request's query string. */
export const pkceParams = (challenge: string) =>
  `response_type=code&code_challenge_method=S256&code_challenge=${challenge}`;

/**
 * The browser's GET of the consent page for `clientId`, with a PKCE challenge (a fresh one unless
 * given) and any more parameters in `query`, as `session` when given, else signed out.
 */
export function consentPage(
  app: FastifyInstance,
  clientId: string,
  options: { session?: Session; query?: Record<string, string>; challenge?: string } = {},
) {
  const query = new URLSearchParams({ client_id: clientId, ...options.query });
  return app.inject({
    method: 'GET',
    url: `/authorize?${query}&${pkceParams(options.challenge ?? pkcePair().challenge)}`,
    ...(options.session ? { cookies: { session: options.session.cookie } } : {}),
  });
}

export type TestSatellite = { id: string; apiKey: string };

/**
 * A satellite registered through the API as an operator would (a token from an admin, then
 * registration), and activated by its first heartbeat unless `activate` is false.
 */
export async function registerTestSatellite(
  app: FastifyInstance,
  admin: Session,
  options: { teamId?: string; activate?: boolean } = {},
): Promise<TestSatellite> {
  const tokenUrl = options.teamId
    ? `/api/teams/${options.teamId}/satellites/registration-tokens`
    : '/api/satellites/registration-tokens';
  const token = await app.inject({ method: 'POST', url: tokenUrl, headers: bearer(admin), payload: {} });
  if (token.statusCode !== 201) throw new Error(`registration token: ${token.statusCode} ${token.body}`);
  const registered = await app.inject({
    method: 'POST',
    url: '/api/satellites/register',
    headers: { authorization: token.json().data.authorization },
    payload: { name: `introspecting-${options.teamId ?? 'global'}`, capabilities: ['stdio'], system_info: {} },
  });
  if (registered.statusCode !== 201) throw new Error(`registration: ${registered.statusCode} ${registered.body}`);
  const satellite = { id: registered.json().data.satellite_id, apiKey: registered.json().data.api_key };
  if (options.activate !== false) {
    const heartbeat = await sendHeartbeat(app, satellite);
    if (heartbeat.statusCode !== 200) throw new Error(`heartbeat: ${heartbeat.statusCode} ${heartbeat.body}`);
  }
  return satellite;
}

/** A satellite's heartbeat of an idle machine, with its key: the first one activates it. */
export function sendHeartbeat(app: FastifyInstance, satellite: TestSatellite) {
  return app.inject({
    method: 'POST',
    url: `/api/satellites/${satellite.id}/heartbeat`,
    headers: { authorization: `Bearer ${satellite.apiKey}` },
    payload: {
      system: {
        cpu_percent: 1,
        memory: { used_mb: 100, total_mb: 1000 },
        disk: { used_mb: 100, total_mb: 1000 },
        network_status: 'online',
        process_counts: { total: 0, running: 0, failed: 0 },
        uptime_seconds: 1,
      },
      processes: [],
    },
  });
}
