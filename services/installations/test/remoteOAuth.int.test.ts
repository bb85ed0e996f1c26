import {
  type CallerIdentity,
  remoteOAuthSubjects as o,
  type SatelliteTokenReply,
  installationSubjects as s,
} from '@orbital/contracts';
import { type OAuthProtectedMcpServer, startOAuthProtectedMcpServer } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, eventually, refusal, teamA, teamAdmin, teamB, teamUser } from './installationsHarness.ts';
import { useInstallations } from './useInstallations.ts';

const h = useInstallations({
  REMOTE_OAUTH_ALLOWED_NETWORKS: '127.0.0.0/8',
  REMOTE_OAUTH_ALLOW_HTTP: 'true',
  REMOTE_OAUTH_REFRESH_MARGIN_SECONDS: '1',
});
let upstream: OAuthProtectedMcpServer;
let shortLived: OAuthProtectedMcpServer;

const redirectUri = 'http://127.0.0.1:3000/api/mcp/oauth/callback';
const flowUrls = {
  redirect_uri: redirectUri,
  client_metadata_url: 'http://127.0.0.1:3000/api/mcp/oauth/client-metadata.json',
};
const globalSatellite: CallerIdentity = {
  kind: 'satellite',
  satellite_id: 'sat-global',
  satellite_type: 'global',
  team_id: null,
};
const teamBSatellite: CallerIdentity = {
  kind: 'satellite',
  satellite_id: 'sat-team-b',
  satellite_type: 'team',
  team_id: teamB,
};
const consoleUrl = 'http://console.example';

async function install(slug: string, url: string, tokenScope: 'user' | 'team'): Promise<string> {
  await h.client.request(
    s.createTemplate,
    { slug, name: slug, transport: 'http', url, oauth: { token_scope: tokenScope } },
    { identity: admin },
  );
  const installation = await h.client.request(
    s.createInstallation,
    { team_id: teamA, installation: { server_slug: slug, name: slug } },
    { identity: teamAdmin },
  );
  return installation.id;
}

/** The parameters of the authorization server's redirect that the gateway passes on. */
function callbackParams(back: URL) {
  const pick = (name: string) => back.searchParams.get(name) ?? undefined;
  return {
    state: pick('state') ?? '',
    code: pick('code'),
    iss: pick('iss'),
    error: pick('error'),
    error_description: pick('error_description'),
  };
}

/** Runs the flow as `who`, consenting (or not) at the authorization server as `login`. */
async function authorize(
  who: CallerIdentity,
  installationId: string,
  server: OAuthProtectedMcpServer,
  login: string,
  decision: 'allow' | 'deny' = 'allow',
) {
  const started = await h.client.request(
    o.start,
    { team_id: teamA, installation_id: installationId, ...flowUrls },
    { identity: who },
  );
  const back = await server.authorize(started.authorization_url, login, decision);
  const outcome = await h.client.request(
    o.complete,
    { ...callbackParams(back), browser_binding: started.browser_binding },
    { identity: { kind: 'anonymous' } },
  );
  return { started, back, outcome };
}

function tokenFor(installationId: string, userId: string | null, extra: { refused?: boolean } = {}) {
  return h.client.request(
    o.tokenForSatellite,
    {
      satellite_id: 'sat-global',
      installation_id: installationId,
      user_id: userId,
      purpose: 'call',
      console_url: consoleUrl,
      ...extra,
    },
    { identity: globalSatellite },
  );
}

function accessToken(reply: SatelliteTokenReply): string {
  if (reply.status !== 'ok') throw new Error(`no token: ${reply.message}`);
  return reply.access_token;
}

beforeAll(async () => {
  upstream = await startOAuthProtectedMcpServer();
  shortLived = await startOAuthProtectedMcpServer({ accessTokenTtlSeconds: 3 });
});

afterAll(async () => {
  await upstream?.close();
  await shortLived?.close();
});

describe('the MCP authorization flow for a per-user remote server', () => {
  let installationId: string;
  let aliceToken: string;

  it('discovers the authorization server, registers once and asks for a code with PKCE and the resource', async () => {
    installationId = await install('protected', upstream.mcpUrl, 'user');
    const started = await h.client.request(
      o.start,
      { team_id: teamA, installation_id: installationId, ...flowUrls },
      { identity: teamUser },
    );
    const url = new URL(started.authorization_url);
    expect(url.href.startsWith(`${upstream.issuer}/auth`)).toBe(true);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('resource')).toBe(upstream.mcpUrl);
    expect(url.searchParams.get('redirect_uri')).toBe(redirectUri);
    expect(url.searchParams.get('scope')).toBe('mcp:tools');
    expect(upstream.requests.filter((r) => r.endpoint === 'registration')).toHaveLength(1);
    // A second flow reuses the registration.
    await h.client.request(
      o.start,
      { team_id: teamA, installation_id: installationId, ...flowUrls },
      { identity: teamUser },
    );
    expect(upstream.requests.filter((r) => r.endpoint === 'registration')).toHaveLength(1);
  });

  it('stores the token encrypted once the person consents, and tells the satellites', async () => {
    const before = h.commands.length;
    const { outcome, back } = await authorize(teamUser, installationId, upstream, 'alice');
    expect(back.searchParams.get('iss')).toBe(upstream.issuer);
    expect(outcome).toMatchObject({ outcome: 'connected', team_id: teamA, installation_id: installationId });
    await eventually(async () => h.commands.length > before);
    expect(h.commands.at(-1)?.payload).toMatchObject({
      event: 'mcp_installation_updated',
      installation_id: installationId,
    });
    aliceToken = accessToken(await tokenFor(installationId, teamUser.kind === 'user' ? teamUser.user_id : null));
    expect(await upstream.isActive(aliceToken)).toBe(true);
    const rows = await h.sql<{ sealed_tokens: string }>('SELECT sealed_tokens FROM installations.oauth_tokens');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.sealed_tokens).not.toContain(aliceToken);
    const status = await h.client.request(
      o.getStatus,
      { team_id: teamA, installation_id: installationId },
      {
        identity: teamUser,
      },
    );
    expect(status).toMatchObject({ token_scope: 'user', connected: true });
    expect(status.connections).toEqual([
      expect.objectContaining({ owner: { user_id: 'u-team-user' }, authorization_server: upstream.issuer }),
    ]);
  });

  it('answers a member without a token where to authorize, and refuses satellites of other teams', async () => {
    const reply = await tokenFor(installationId, 'u-team-admin');
    expect(reply).toEqual({
      status: 'authorization_required',
      authorize_url: `${consoleUrl}/teams/${teamA}/installations/${installationId}`,
      message: expect.stringMatching(/not authorized Orbital .* Authorize at http:\/\/console\.example\/teams\//),
    });
    const anonymousCall = await tokenFor(installationId, null);
    expect(anonymousCall).toMatchObject({ status: 'authorization_required' });
    expect(anonymousCall.status === 'authorization_required' && anonymousCall.message).toMatch(
      /does not know who is calling/,
    );
    const foreign = h.client.request(
      o.tokenForSatellite,
      {
        satellite_id: 'sat-team-b',
        installation_id: installationId,
        user_id: 'u-team-user',
        purpose: 'call',
        console_url: consoleUrl,
      },
      { identity: teamBSatellite },
    );
    expect(await refusal(foreign)).toBe('not_found');
  });

  it('refuses a completion from a browser that did not start the flow, and a state used twice', async () => {
    const started = await h.client.request(
      o.start,
      { team_id: teamA, installation_id: installationId, ...flowUrls },
      { identity: teamUser },
    );
    const back = await upstream.authorize(started.authorization_url, 'mallory');
    const complete = (binding: string) =>
      h.client.request(
        o.complete,
        { ...callbackParams(back), browser_binding: binding },
        { identity: { kind: 'anonymous' } },
      );
    expect(await refusal(complete('another-browser'))).toBe('forbidden');
    expect(await refusal(complete(started.browser_binding))).toBe('not_found');
    // Alice's token is untouched by the refused attempt.
    expect(accessToken(await tokenFor(installationId, 'u-team-user'))).toBe(aliceToken);
  });

  it('stores nothing when the person refuses consent', async () => {
    const { outcome } = await authorize(teamAdmin, installationId, upstream, 'bob', 'deny');
    expect(outcome).toMatchObject({ outcome: 'refused' });
    expect(await tokenFor(installationId, 'u-team-admin')).toMatchObject({ status: 'authorization_required' });
  });

  it('refreshes a token the server refused, and forgets an authorization revoked at the server', async () => {
    const refreshed = accessToken(await tokenFor(installationId, 'u-team-user', { refused: true }));
    expect(refreshed).not.toBe(aliceToken);
    expect(upstream.requests.some((r) => r.endpoint === 'token')).toBe(true);
    await upstream.revokeGrantsOf('alice');
    const reply = await tokenFor(installationId, 'u-team-user', { refused: true });
    expect(reply).toMatchObject({ status: 'authorization_required' });
    expect(reply.status === 'authorization_required' && reply.message).toMatch(/expired or was revoked/);
    const status = await h.client.request(
      o.getStatus,
      { team_id: teamA, installation_id: installationId },
      {
        identity: teamUser,
      },
    );
    expect(status.connected).toBe(false);
  });

  it('revokes the tokens at the authorization server when the installation is removed', async () => {
    await authorize(teamUser, installationId, upstream, 'carol');
    const token = accessToken(await tokenFor(installationId, 'u-team-user'));
    expect(await upstream.isActive(token)).toBe(true);
    await h.client.request(
      s.deleteInstallation,
      { team_id: teamA, installation_id: installationId },
      {
        identity: teamAdmin,
      },
    );
    await eventually(async () => !(await upstream.isActive(token)));
    expect(upstream.requests.filter((r) => r.endpoint === 'revocation').length).toBeGreaterThanOrEqual(1);
    expect(await h.sql('SELECT 1 FROM installations.oauth_revocations')).toHaveLength(0);
  });
});

describe('the audit log', () => {
  it('has an entry for each authorization given, refused and removed, naming no token', async () => {
    const entries = await h.auditEntries<{ action: string; outcome: string; actor: { id: string }; reason: string }>(
      'installation.oauth_%',
    );
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'installation.oauth_authorized',
          outcome: 'success',
          actor: expect.objectContaining({ id: 'u-team-user' }),
        }),
        expect.objectContaining({
          action: 'installation.oauth_authorized',
          outcome: 'failure',
          actor: expect.objectContaining({ id: 'u-team-admin' }),
          reason: expect.stringMatching(/refused/),
        }),
      ]),
    );
    expect(JSON.stringify(entries)).not.toMatch(/access_token|refresh_token/);
  });
});

describe('a token that expires', () => {
  it('is refreshed before a satellite gets it, once the authorization server lets it expire', async () => {
    const installationId = await install('short-lived', shortLived.mcpUrl, 'user');
    await authorize(teamUser, installationId, shortLived, 'dave');
    const first = accessToken(await tokenFor(installationId, 'u-team-user'));
    await eventually(async () => !(await shortLived.isActive(first)), 15000);
    const second = accessToken(await tokenFor(installationId, 'u-team-user'));
    expect(second).not.toBe(first);
    expect(await shortLived.isActive(second)).toBe(true);
  });
});

describe('a team token', () => {
  it('is authorized by a team admin only, and serves every call and discovery', async () => {
    const installationId = await install('team-token', upstream.mcpUrl, 'team');
    const byUser = h.client.request(
      o.start,
      { team_id: teamA, installation_id: installationId, ...flowUrls },
      { identity: teamUser },
    );
    expect(await refusal(byUser)).toBe('forbidden');
    await authorize(teamAdmin, installationId, upstream, 'team-account');
    const token = accessToken(await tokenFor(installationId, null));
    expect(accessToken(await tokenFor(installationId, 'u-team-user'))).toBe(token);
    const disconnect = h.client.request(
      o.disconnect,
      { team_id: teamA, installation_id: installationId, owner: 'team' },
      { identity: teamUser },
    );
    expect(await refusal(disconnect)).toBe('forbidden');
    const removed = await h.client.request(
      o.disconnect,
      { team_id: teamA, installation_id: installationId, owner: 'team' },
      { identity: teamAdmin },
    );
    expect(removed).toEqual({ deleted: true });
    await eventually(async () => !(await upstream.isActive(token)));
    const revoked = await h.sql(
      `SELECT 1 FROM installations.audit_outbox WHERE entry->>'action' = 'installation.oauth_revoked'`,
    );
    expect(revoked).toHaveLength(1);
  });

  it('refuses to start a flow for a server that does not use OAuth', async () => {
    await h.client.request(
      s.createTemplate,
      { slug: 'plain-remote', name: 'plain', transport: 'http', url: upstream.mcpUrl },
      { identity: admin },
    );
    const plain = await h.client.request(
      s.createInstallation,
      { team_id: teamA, installation: { server_slug: 'plain-remote', name: 'plain-remote' } },
      { identity: teamAdmin },
    );
    const started = h.client.request(
      o.start,
      { team_id: teamA, installation_id: plain.id, ...flowUrls },
      { identity: teamAdmin },
    );
    expect(await refusal(started)).toBe('validation_failed');
  });
});
