import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { loadConfig } from '@orbital/config';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSatelliteApp, type SatelliteApp } from '../satellite/src/app.ts';
import { type BackendLink, createBackendLink } from '../satellite/src/backend/createBackendLink.ts';
import { satelliteEnv } from '../satellite/src/config.ts';
import { createRecordingEventSink } from '../satellite/src/events/createRecordingEventSink.ts';
import { freePort, silentLogger, stdioServer, textOf } from '../satellite/test/helpers.ts';
import {
  adminCredentials,
  bearer,
  type IdentityStack,
  login,
  type Session,
  startIdentityStack,
} from '../services/gateway-api/test/identityStack.ts';
import { sendHeartbeat } from '../services/gateway-api/test/oauthFlow.ts';

/**
 * OAuth for MCP clients of satellites end to end, in one process: the real gateway-api with identity and
 * OAuth (PostgreSQL, NATS, Redis), listening on a port; a satellite in oauth mode serving real stdio MCP
 * servers of two teams; and the SDK's Client, with its own OAuth support doing discovery, dynamic
 * registration and the authorization-code flow with PKCE. The test plays the user's browser on the consent
 * page.
 */
let stack: IdentityStack;
let gateway: FastifyInstance;
let satellite: SatelliteApp;
let link: BackendLink;
let mcpUrl: URL;
let issuer: URL;
let clock = Date.now();
let introspections = 0;
let teamA: string;
let teamB: string;
const users = {} as Record<'admin' | 'alice' | 'bob', Session>;
const clients: Client[] = [];
const cacheTtlMs = 30_000;

async function asAdmin(method: 'POST' | 'GET', url: string, payload?: Record<string, unknown>) {
  const response = await gateway.inject({ method, url, headers: bearer(users.admin), ...(payload ? { payload } : {}) });
  if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json().data;
}

beforeAll(async () => {
  const gatewayPort = await freePort();
  issuer = new URL(`http://127.0.0.1:${gatewayPort}`);
  stack = await startIdentityStack({ issuerUrl: issuer, now: () => clock });
  gateway = stack.gateways[0]?.app as FastifyInstance;
  await gateway.listen({ port: gatewayPort, host: '127.0.0.1' });
  users.admin = await login(gateway, adminCredentials.email, adminCredentials.password);
  teamA = (await asAdmin('POST', '/api/teams', { slug: 'team-a', name: 'Team A' })).id;
  teamB = (await asAdmin('POST', '/api/teams', { slug: 'team-b', name: 'Team B' })).id;
  const members: Record<'alice' | 'bob', string[]> = { alice: [teamA, teamB], bob: [teamB] };
  for (const [name, teams] of Object.entries(members)) {
    const credentials = { email: `${name}@orbital.test`, password: `long pass phrase ${name.length * 3} for e2e` };
    const user = await asAdmin('POST', '/api/users', { ...credentials, name });
    for (const teamId of teams)
      await asAdmin('POST', `/api/teams/${teamId}/members`, { user_id: user.id, role: 'team_user' });
    users[name as 'alice' | 'bob'] = await login(gateway, credentials.email, credentials.password);
  }

  const satellitePort = await freePort();
  mcpUrl = new URL(`http://127.0.0.1:${satellitePort}/mcp`);
  const teamServer = (name: string, teamId: string, teamSlug: string) =>
    stdioServer(name, {
      installation_id: `inst-${name}-${teamSlug}`,
      process_id: `fixture-${teamSlug}-inst-${name}-${teamSlug}`,
      team_id: teamId,
      team_slug: teamSlug,
      env: { FIXTURE_GIVEN: `configured for ${teamSlug}` },
    });
  // The satellite registers as in production (backend mode): the backend link registers with a
  // registration token, keeps the API key in its state directory and hands it to introspection.
  // Its loops (heartbeats, configuration sync) are not started: the servers below are fixtures, so
  // the one heartbeat that activates the satellite is sent here.
  const registration = await asAdmin('POST', '/api/satellites/registration-tokens', {});
  const config = loadConfig(satelliteEnv, {
    LOG_LEVEL: 'silent',
    PROCESS_IDLE_TIMEOUT_MS: '0',
    REMOTE_HEALTH_INTERVAL_MS: '0',
    // The fake clock jumps past an access token's hour; the MCP session must outlive that.
    SESSION_IDLE_TIMEOUT_MS: String(24 * 3600_000),
    SATELLITE_AUTH_MODE: 'oauth',
    SATELLITE_TYPE: 'global',
    SATELLITE_PUBLIC_URL: mcpUrl.href,
    SATELLITE_AUTH_SERVER_URL: issuer.href,
    SATELLITE_INTROSPECTION_CACHE_TTL_MS: String(cacheTtlMs),
    BACKEND_URL: issuer.href,
    SATELLITE_REGISTRATION_TOKEN: registration.token,
    SATELLITE_STATE_DIR: await mkdtemp(join(tmpdir(), 'orbital-oauth-e2e-')),
  });
  link = createBackendLink({ config: { ...config, BACKEND_URL: issuer.href }, logger: silentLogger });
  const credentials = await link.identity.ensure();
  // The first heartbeat moves the registered satellite from inactive to active.
  const heartbeat = await sendHeartbeat(gateway, { id: credentials.satellite_id, apiKey: credentials.api_key });
  expect(heartbeat.statusCode).toBe(200);
  satellite = createSatelliteApp({
    config,
    introspectionCredential: link.introspectionCredential,
    servers: [
      teamServer('alpha', teamA, 'team-a'),
      teamServer('shared', teamA, 'team-a'),
      teamServer('beta', teamB, 'team-b'),
      teamServer('shared', teamB, 'team-b'),
    ],
    events: createRecordingEventSink(),
    logger: silentLogger,
    now: () => clock,
    fetch: (input, init) => {
      introspections++;
      return fetch(input, init);
    },
  });
  await satellite.start();
  await satellite.app.listen({ port: satellitePort, host: '127.0.0.1' });
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await satellite?.close();
  await link?.stop();
  await gateway?.close();
  await stack?.stop();
});

/** An MCP client's OAuth state, in memory, as the SDK's OAuthClientProvider describes it. */
class MemoryOAuthProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl = 'http://127.0.0.1:8976/callback';
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'E2E editor',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const decodeEntities = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The user's browser: opens the consent page with the session cookie, picks the team, allows. */
async function consentInBrowser(authorizationUrl: URL, session: Session, teamId: string): Promise<URL> {
  const page = await fetch(authorizationUrl, { headers: { cookie: `session=${session.cookie}` }, redirect: 'manual' });
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain(`value="${teamId}"`);
  const fields = new URLSearchParams();
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields.set(decodeEntities(match[1] as string), decodeEntities(match[2] as string));
  }
  fields.set('team_id', teamId);
  fields.set('decision', 'approve');
  const answer = await fetch(new URL('/authorize', issuer), {
    method: 'POST',
    headers: { cookie: `session=${session.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: fields,
    redirect: 'manual',
  });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location') as string);
}

/** The whole flow an editor goes through: 401, discovery, registration, consent, code, tokens. */
async function authorizedClient(session: Session, teamId: string) {
  const provider = new MemoryOAuthProvider();
  const first = new Client({ name: 'e2e', version: '1.0.0' });
  await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toThrow(
    UnauthorizedError,
  );
  expect(provider.authorizationUrl?.origin).toBe(issuer.origin);
  const redirect = await consentInBrowser(provider.authorizationUrl as URL, session, teamId);
  const code = redirect.searchParams.get('code') as string;
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await transport.finishAuth(code);
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  clients.push(client);
  return { client, provider };
}

async function patClient(token: string) {
  const transport = new StreamableHTTPClientTransport(mcpUrl, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'e2e-pat', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

async function createPat(session: Session, teamId: string, name: string) {
  const response = await gateway.inject({
    method: 'POST',
    url: '/api/users/me/access-tokens',
    headers: bearer(session),
    payload: { team_id: teamId, name },
  });
  expect(response.statusCode).toBe(201);
  return response.json().data as { id: string; token: string };
}

/**
 * The echo tools a discovery for "echo" finds, sorted, after checking that every tool it found (the
 * ranking may add related tools) belongs to a server the token's team may use: its own or the shared one.
 */
async function toolPaths(client: Client, query: string) {
  const result = await client.callTool({ name: 'discover_mcp_tools', arguments: { query, limit: 50 } });
  return echoToolsOf((JSON.parse(textOf(result)).tools as Array<{ tool_path: string }>).map((t) => t.tool_path));
}

function echoToolsOf(paths: string[]) {
  const servers = new Set(paths.map((path) => path.split(':')[0]));
  expect(servers.has('shared')).toBe(true);
  expect(servers.size, paths.join(', ')).toBe(2);
  return paths.filter((path) => path.endsWith(':echo')).sort();
}

async function execute(client: Client, toolPath: string, args: Record<string, unknown>) {
  const result = await client.callTool({
    name: 'execute_mcp_tool',
    arguments: { tool_path: toolPath, arguments: args },
  });
  return { text: textOf(result), isError: result.isError === true };
}

/** A raw MCP request, as an attacker holding a stolen session id would send it. */
async function rawToolsList(sessionId: string, token: string) {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-03-26',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
  });
}

describe('a satellite in oauth mode', () => {
  it('answers 401 with the resource metadata link, and the metadata names the backend', async () => {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(response.status).toBe(401);
    const metadataUrl = `${mcpUrl.origin}/.well-known/oauth-protected-resource/mcp`;
    expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    const metadata = await (await fetch(metadataUrl)).json();
    expect(metadata).toMatchObject({
      resource: mcpUrl.href,
      authorization_servers: [issuer.href.replace(/\/$/, '')],
      scopes_supported: ['mcp'],
    });
    const invalid = await fetch(mcpUrl, { method: 'POST', headers: { authorization: 'Bearer orb_at_forged' } });
    expect(invalid.status).toBe(401);
    const plain = new Client({ name: 'e2e', version: '1.0.0' });
    await expect(plain.connect(new StreamableHTTPClientTransport(mcpUrl))).rejects.toThrow();
  });

  it("gives an OAuth client of team A team A's tools only, and refuses team B's", async () => {
    const { client, provider } = await authorizedClient(users.alice, teamA);
    expect(provider.saved?.access_token).toMatch(/^orb_at_/);
    expect(provider.saved?.refresh_token).toMatch(/^orb_rt_/);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['discover_mcp_tools', 'execute_mcp_tool']);
    const paths = await toolPaths(client, 'echo');
    expect(paths).toEqual(['alpha:echo', 'shared:echo']);
    expect(await execute(client, 'alpha:echo', { text: 'hello' })).toEqual({
      text: expect.stringContaining('hello'),
      isError: false,
    });
    // The installation name both teams use resolves to this team's server, unqualified.
    const whoami = await execute(client, 'shared:whoami', {});
    expect(whoami.text).toContain('configured for team-a');
    expect(whoami.text).not.toContain('configured for team-b');
    const refused = await execute(client, 'beta:echo', { text: 'hello' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('Unknown tool "beta:echo"');
    // Alice is a member of team B too: the token's team, not her memberships, decides.
    const listed = (
      await gateway.inject({ method: 'GET', url: '/api/users/me/access-tokens', headers: bearer(users.alice) })
    ).json().data;
    expect(listed).toContainEqual(
      expect.objectContaining({ kind: 'oauth', team_id: teamA, client_name: 'E2E editor' }),
    );
  });

  it('serves a personal access token of team B with team B tools', async () => {
    const pat = await createPat(users.bob, teamB, 'bob editor');
    const { client } = await patClient(pat.token);
    expect(await toolPaths(client, 'echo')).toEqual(['beta:echo', 'shared:echo']);
    expect((await execute(client, 'shared:whoami', {})).text).toContain('configured for team-b');
    expect((await execute(client, 'alpha:echo', { text: 'x' })).isError).toBe(true);
  });

  it("authenticates every request of a 2026-07-28 client on its own, with its team's tools only", async () => {
    const pat = await createPat(users.bob, teamB, 'bob modern');
    const client = new ModernClient(
      { name: 'e2e-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new ModernTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${pat.token}` } } }),
    );
    const paths = await client.callTool({ name: 'discover_mcp_tools', arguments: { query: 'echo', limit: 50 } });
    expect(
      echoToolsOf((JSON.parse(textOf(paths)).tools as Array<{ tool_path: string }>).map((t) => t.tool_path)),
    ).toEqual(['beta:echo', 'shared:echo']);
    const whoami = await client.callTool({
      name: 'execute_mcp_tool',
      arguments: { tool_path: 'shared:whoami', arguments: {} },
    });
    expect(textOf(whoami)).toContain('configured for team-b');
    const foreign = await client.callTool({
      name: 'execute_mcp_tool',
      arguments: { tool_path: 'alpha:echo', arguments: { text: 'x' } },
    });
    expect(foreign.isError).toBe(true);
    await client.close();
    // Without its token the same request, stateless, is refused: nothing carries over from before.
    const anonymous = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('refuses a session id presented with the token of another user or another team', async () => {
    const alicePat = await createPat(users.alice, teamA, 'alice a');
    const { transport } = await patClient(alicePat.token);
    const sessionId = transport.sessionId as string;
    expect(sessionId).toBeTruthy();
    const bobPat = await createPat(users.bob, teamB, 'bob b');
    expect((await rawToolsList(sessionId, bobPat.token)).status).toBe(404);
    const aliceInB = await createPat(users.alice, teamB, 'alice b');
    expect((await rawToolsList(sessionId, aliceInB.token)).status).toBe(404);
    // The same user and team with another token (a refreshed one, a second device) keeps the session.
    const aliceAgain = await createPat(users.alice, teamA, 'alice a again');
    const same = await rawToolsList(sessionId, aliceAgain.token);
    expect(same.status).toBe(200);
    await same.body?.cancel();
  });

  it('refuses a revoked token once the cache lifetime has passed, with one introspection per lifetime', async () => {
    const pat = await createPat(users.alice, teamA, 'to revoke');
    const before = introspections;
    const { client } = await patClient(pat.token);
    expect(await toolPaths(client, 'echo')).toEqual(['alpha:echo', 'shared:echo']);
    await execute(client, 'alpha:echo', { text: 'one' });
    // initialize, initialized, discover and execute: one introspection for all.
    expect(introspections - before).toBe(1);
    const revoked = await gateway.inject({
      method: 'DELETE',
      url: `/api/users/me/access-tokens/${pat.id}`,
      headers: bearer(users.alice),
    });
    expect(revoked.statusCode).toBe(200);
    // Within the cache lifetime the satellite has not asked again, so the token still works.
    clock += cacheTtlMs - 1000;
    expect((await execute(client, 'alpha:echo', { text: 'two' })).text).toContain('two');
    clock += 1001;
    await expect(execute(client, 'alpha:echo', { text: 'three' })).rejects.toThrow();
    expect(introspections - before).toBe(2);
  });

  it('keeps working after the SDK client refreshes its token, and stops after the grant is revoked', async () => {
    const { client, provider } = await authorizedClient(users.alice, teamA);
    const firstRefresh = provider.saved?.refresh_token;
    // The access token expires (1 hour); the SDK refreshes it on the 401 and retries.
    clock += 3600_000 + 1000;
    expect((await execute(client, 'alpha:echo', { text: 'after refresh' })).text).toContain('after refresh');
    expect(provider.saved?.refresh_token).not.toBe(firstRefresh);
    const grants = (
      await gateway.inject({ method: 'GET', url: `/api/users/me/access-tokens`, headers: bearer(users.alice) })
    ).json().data as Array<{ id: string; kind: string }>;
    for (const grant of grants.filter((g) => g.kind === 'oauth')) {
      await gateway.inject({
        method: 'DELETE',
        url: `/api/users/me/access-tokens/${grant.id}`,
        headers: bearer(users.alice),
      });
    }
    clock += cacheTtlMs + 1;
    await expect(execute(client, 'alpha:echo', { text: 'revoked' })).rejects.toThrow();
  });
});
