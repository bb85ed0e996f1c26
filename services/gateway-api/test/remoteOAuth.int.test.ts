import { heartbeatBody, satelliteBody } from '@orbital/satellite-registry/testing';
import { type OAuthProtectedMcpServer, startOAuthProtectedMcpServer } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IdentityStack, loginAdmin, type Session, startIdentityStack } from './identityStack.ts';

let stack: IdentityStack;
let upstream: OAuthProtectedMcpServer;
let admin: Session;
let teamId: string;
let installationId: string;

const bearer = (session: Session) => ({ authorization: `Bearer ${session.token}` });

async function api(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, headers = bearer(admin)) {
  const response = await stack.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return response;
}

/** Starts a flow over HTTP and consents at the authorization server; the redirect back, not yet followed. */
async function consent(login: string, decision: 'allow' | 'deny' = 'allow') {
  const started = await api('POST', `/api/teams/${teamId}/mcp/installations/${installationId}/oauth/authorize`);
  expect(started.statusCode, started.body).toBe(200);
  const cookie = started.cookies.find((c) => c.name === 'orbital_mcp_oauth');
  const back = await upstream.authorize(started.json().data.authorization_url, login, decision);
  return { cookie, back };
}

beforeAll(async () => {
  upstream = await startOAuthProtectedMcpServer();
  stack = await startIdentityStack({
    installationsEnv: { REMOTE_OAUTH_ALLOWED_NETWORKS: '127.0.0.0/8', REMOTE_OAUTH_ALLOW_HTTP: 'true' },
  });
  admin = await loginAdmin(stack.app);
  teamId = (await api('POST', '/api/teams', { name: 'Remote', slug: 'remote' })).json().data.id;
  const template = await api('POST', '/api/mcp/servers', {
    slug: 'protected',
    name: 'Protected',
    transport: 'http',
    url: upstream.mcpUrl,
    oauth: { token_scope: 'user' },
  });
  expect(template.statusCode, template.body).toBe(201);
  const installed = await api('POST', `/api/teams/${teamId}/mcp/installations`, {
    server_slug: 'protected',
    name: 'protected',
  });
  installationId = installed.json().data.id;
});

afterAll(async () => {
  await stack?.stop();
  await upstream?.close();
});

describe('the remote OAuth flow over HTTP', () => {
  it("serves Orbital's client metadata document", async () => {
    const response = await api('GET', '/api/mcp/oauth/client-metadata.json', undefined, {} as never);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      client_id: 'http://localhost:3000/api/mcp/oauth/client-metadata.json',
      redirect_uris: ['http://localhost:3000/api/mcp/oauth/callback'],
      token_endpoint_auth_method: 'none',
    });
  });

  it('binds the flow to the browser that started it, then lands on the installation page', async () => {
    const { cookie, back } = await consent('alice');
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/api/mcp/oauth/callback' });
    const callback = `${back.pathname}${back.search}`;
    expect(back.pathname).toBe('/api/mcp/oauth/callback');
    // Another browser (no cookie) is sent back to the console with the reason; the state is spent.
    const foreign = await stack.app.inject({ method: 'GET', url: callback });
    expect(foreign.statusCode).toBe(303);
    expect(foreign.headers.location).toMatch(
      /^\/installations\?oauth=failed&message=This\+authorization\+was\+started/,
    );
    const again = await consent('alice');
    const done = await stack.app.inject({
      method: 'GET',
      url: `${again.back.pathname}${again.back.search}`,
      cookies: { orbital_mcp_oauth: again.cookie?.value ?? '' },
    });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toMatch(
      new RegExp(`^/teams/${teamId}/installations/${installationId}\\?oauth=connected&`),
    );
    expect(done.cookies.find((c) => c.name === 'orbital_mcp_oauth')?.value).toBe('');
    const status = await api('GET', `/api/teams/${teamId}/mcp/installations/${installationId}/oauth`);
    expect(status.json().data).toMatchObject({ token_scope: 'user', connected: true });
  });

  it('says so when consent is refused', async () => {
    const { cookie, back } = await consent('bob', 'deny');
    const done = await stack.app.inject({
      method: 'GET',
      url: `${back.pathname}${back.search}`,
      cookies: { orbital_mcp_oauth: cookie?.value ?? '' },
    });
    expect(done.headers.location).toMatch(/\?oauth=refused&message=The\+authorization\+was\+refused/);
  });

  it("hands a satellite the calling user's token, and no token in any log line", async () => {
    const token = await api('POST', '/api/satellites/registration-tokens', {});
    const registered = await stack.app.inject({
      method: 'POST',
      url: '/api/satellites/register',
      headers: { authorization: token.json().data.authorization },
      payload: satelliteBody('remote-test'),
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const { satellite_id: id, api_key: key } = registered.json().data;
    const satellite = { authorization: `Bearer ${key}` };
    await api('POST', `/api/satellites/${id}/heartbeat`, heartbeatBody(), satellite);
    const mine = await api(
      'POST',
      `/api/satellites/${id}/oauth/token`,
      { installation_id: installationId, user_id: admin.userId, purpose: 'call' },
      satellite,
    );
    expect(mine.statusCode, mine.body).toBe(200);
    const accessToken = mine.json().data.access_token as string;
    expect(await upstream.isActive(accessToken)).toBe(true);
    const nobody = await api(
      'POST',
      `/api/satellites/${id}/oauth/token`,
      { installation_id: installationId, user_id: null, purpose: 'call' },
      satellite,
    );
    expect(nobody.json().data).toMatchObject({
      status: 'authorization_required',
      authorize_url: `http://localhost:3000/teams/${teamId}/installations/${installationId}`,
    });
    const asPerson = await api('POST', `/api/satellites/${id}/oauth/token`, {
      installation_id: installationId,
      user_id: admin.userId,
      purpose: 'call',
    });
    expect(asPerson.statusCode).toBe(401);
    expect(stack.logs.text()).not.toContain(accessToken);
  });
});
