import { randomUUID } from 'node:crypto';
import { crashedEvent } from './eventFixtures.ts';

/**
 * Who gets what, for every route of the gateway: the one table the access test runs. A route added
 * later joins by adding a row (the test fails while a registered route has none).
 *
 * Roles, set up by the test (access.int.test.ts):
 * - anonymous: no credential;
 * - global_admin: the first admin;
 * - team_admin / team_user: members of team A with that role;
 * - other_team: team_admin of team B only;
 * - no_team: a global_user without any membership.
 *
 * Rows that change state aim where an allowed caller gets a harmless answer (a 404 for an unknown id,
 * a new team with a fresh slug), so the rows can run in any order; a 404 still proves access was
 * granted, since access is checked before anything is looked up.
 */
export const accessRoles = ['anonymous', 'global_admin', 'team_admin', 'team_user', 'other_team', 'no_team'] as const;
export type AccessRole = (typeof accessRoles)[number];

export type AccessContext = { teamA: string; teamB: string; teamUserId: string };

export type AccessRow = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The route's pattern as registered, to match rows with routes. */
  route: string;
  url: (ctx: AccessContext) => string;
  body?: (ctx: AccessContext) => unknown;
  /** Log in anew for this row (it ends the session it is called with). */
  freshSession?: boolean;
  /**
   * OAuth endpoints answer their own errors in the RFC 6749 shape `{error, error_description}`; the
   * sign-in redirects of outside accounts answer an HTML page a browser shows.
   */
  errorShape?: 'oauth' | 'html';
  /** An SSE route: a caller it admits gets a stream (200, text/event-stream), closed by the test at once. */
  stream?: true;
  expect: Record<AccessRole, number>;
};

const everyone = (status: number): Record<AccessRole, number> => ({
  anonymous: status,
  global_admin: status,
  team_admin: status,
  team_user: status,
  other_team: status,
  no_team: status,
});
const loggedIn = (status: number): Record<AccessRole, number> => ({ ...everyone(status), anonymous: 401 });
const adminOnly = (status: number): Record<AccessRole, number> => ({
  ...everyone(403),
  anonymous: 401,
  global_admin: status,
});
const teamAReaders = (status: number): Record<AccessRole, number> => ({
  anonymous: 401,
  global_admin: status,
  team_admin: status,
  team_user: status,
  other_team: 403,
  no_team: 403,
});
const teamAManagers = (status: number): Record<AccessRole, number> => ({
  ...teamAReaders(status),
  team_user: 403,
});

const unique = () => randomUUID().slice(0, 8);

const teamAMembers = (status: number): Record<AccessRole, number> => ({
  ...everyone(403),
  anonymous: 401,
  team_admin: status,
  team_user: status,
});
const pkceParams = `response_type=code&code_challenge_method=S256&code_challenge=${'a'.repeat(43)}`;

export const accessMatrix: AccessRow[] = [
  // Database setup runs before any user exists; the stack has already set up, so setup is a 409.
  { method: 'GET', route: '/api/db/status', url: () => '/api/db/status', expect: everyone(200) },
  {
    method: 'POST',
    route: '/api/db/setup',
    url: () => '/api/db/setup',
    body: () => ({ type: 'postgresql' }),
    expect: everyone(409),
  },
  // Wrong credentials for everyone: login is public, and its own tests cover success and limits.
  {
    method: 'POST',
    route: '/api/auth/login',
    url: () => '/api/auth/login',
    body: () => ({ email: `nobody-${unique()}@orbital.test`, password: 'not the password' }),
    expect: everyone(401),
  },
  // Sign-in with outside accounts: public. Off in the stack, so starting one is a 404 page, and a callback
  // without its state a 400 page; the flows have their own tests (signInRepohost, signInOidc).
  { method: 'GET', route: '/api/auth/methods', url: () => '/api/auth/methods', expect: everyone(200) },
  ...(['repohost', 'oidc'] as const).flatMap((provider): AccessRow[] => [
    {
      method: 'GET',
      route: `/api/auth/${provider}/start`,
      url: () => `/api/auth/${provider}/start`,
      errorShape: 'html',
      expect: everyone(404),
    },
    {
      method: 'GET',
      route: `/api/auth/${provider}/callback`,
      url: () => `/api/auth/${provider}/callback?code=x`,
      errorShape: 'html',
      expect: everyone(400),
    },
  ]),
  {
    method: 'POST',
    route: '/api/auth/logout',
    url: () => '/api/auth/logout',
    freshSession: true,
    expect: loggedIn(200),
  },
  { method: 'GET', route: '/api/users/me', url: () => '/api/users/me', expect: loggedIn(200) },
  { method: 'GET', route: '/api/users', url: () => '/api/users', expect: adminOnly(200) },
  {
    method: 'POST',
    route: '/api/users',
    url: () => '/api/users',
    body: () => ({ email: `made-${unique()}@orbital.test`, name: 'Made', password: 'a long enough pass phrase' }),
    expect: adminOnly(201),
  },
  {
    method: 'DELETE',
    route: '/api/users/:userId/sessions',
    url: () => `/api/users/${randomUUID()}/sessions`,
    expect: adminOnly(404),
  },
  { method: 'GET', route: '/api/users/:userId', url: () => `/api/users/${randomUUID()}`, expect: adminOnly(404) },
  {
    method: 'PUT',
    route: '/api/users/:userId',
    url: () => `/api/users/${randomUUID()}`,
    body: () => ({ disabled: false }),
    expect: adminOnly(404),
  },
  { method: 'DELETE', route: '/api/users/:userId', url: () => `/api/users/${randomUUID()}`, expect: adminOnly(404) },
  // A wrong current password for everyone signed in: changing one's own password is everyone's.
  {
    method: 'PUT',
    route: '/api/users/me/password',
    url: () => '/api/users/me/password',
    body: () => ({ current_password: 'not the password', new_password: 'another long pass phrase' }),
    expect: loggedIn(400),
  },
  // The mailed-link flows. The access test's platform sends no mail, so what needs a mail is a 409
  // for whoever may ask; a link nobody was sent is a 400 for everyone.
  {
    method: 'POST',
    route: '/api/auth/register',
    url: () => '/api/auth/register',
    body: () => ({ email: `reg-${unique()}@orbital.test`, password: 'a long enough pass phrase', name: 'Reg' }),
    expect: everyone(409),
  },
  {
    method: 'POST',
    route: '/api/auth/verify-email',
    url: () => '/api/auth/verify-email',
    body: () => ({ token: 'x'.repeat(43), password: 'whatever it was' }),
    expect: everyone(400),
  },
  {
    method: 'POST',
    route: '/api/auth/verify-email/resend',
    url: () => '/api/auth/verify-email/resend',
    body: () => ({ email: `someone-${unique()}@orbital.test` }),
    expect: everyone(409),
  },
  {
    method: 'POST',
    route: '/api/auth/password-reset',
    url: () => '/api/auth/password-reset',
    body: () => ({ email: `someone-${unique()}@orbital.test` }),
    expect: everyone(409),
  },
  {
    method: 'POST',
    route: '/api/auth/password-reset/confirm',
    url: () => '/api/auth/password-reset/confirm',
    body: () => ({ token: 'x'.repeat(43), password: 'a long enough pass phrase' }),
    expect: everyone(400),
  },
  {
    method: 'POST',
    route: '/api/teams/:teamId/invitations',
    url: (c) => `/api/teams/${c.teamA}/invitations`,
    body: () => ({ email: `invited-${unique()}@orbital.test` }),
    expect: teamAManagers(409),
  },
  {
    method: 'GET',
    route: '/api/teams/:teamId/invitations',
    url: (c) => `/api/teams/${c.teamA}/invitations`,
    expect: teamAManagers(200),
  },
  {
    method: 'DELETE',
    route: '/api/teams/:teamId/invitations/:invitationId',
    url: (c) => `/api/teams/${c.teamA}/invitations/${randomUUID()}`,
    expect: teamAManagers(404),
  },
  {
    method: 'POST',
    route: '/api/invitations/preview',
    url: () => '/api/invitations/preview',
    body: () => ({ token: 'x'.repeat(43) }),
    expect: everyone(400),
  },
  {
    method: 'POST',
    route: '/api/invitations/accept',
    url: () => '/api/invitations/accept',
    body: () => ({ token: 'x'.repeat(43), name: 'New', password: 'a long enough pass phrase' }),
    expect: everyone(400),
  },
  {
    method: 'POST',
    route: '/api/users/me/invitations/accept',
    url: () => '/api/users/me/invitations/accept',
    body: () => ({ token: 'x'.repeat(43) }),
    expect: loggedIn(400),
  },
  { method: 'GET', route: '/api/teams', url: () => '/api/teams', expect: loggedIn(200) },
  {
    method: 'POST',
    route: '/api/teams',
    url: () => '/api/teams',
    body: () => ({ slug: `team-${unique()}`, name: 'Made' }),
    expect: adminOnly(201),
  },
  { method: 'GET', route: '/api/teams/:teamId', url: (c) => `/api/teams/${c.teamA}`, expect: teamAReaders(200) },
  {
    method: 'PUT',
    route: '/api/teams/:teamId',
    url: (c) => `/api/teams/${c.teamA}`,
    body: () => ({ name: 'Team A' }),
    expect: adminOnly(200),
  },
  { method: 'DELETE', route: '/api/teams/:teamId', url: () => `/api/teams/${randomUUID()}`, expect: adminOnly(404) },
  {
    method: 'GET',
    route: '/api/teams/:teamId/members',
    url: (c) => `/api/teams/${c.teamA}/members`,
    expect: teamAReaders(200),
  },
  {
    method: 'POST',
    route: '/api/teams/:teamId/members',
    url: (c) => `/api/teams/${c.teamA}/members`,
    body: () => ({ email: `nobody-${unique()}@orbital.test`, role: 'team_user' }),
    expect: teamAManagers(404),
  },
  {
    method: 'PUT',
    route: '/api/teams/:teamId/members/:userId',
    url: (c) => `/api/teams/${c.teamA}/members/${c.teamUserId}`,
    body: () => ({ role: 'team_user' }),
    expect: teamAManagers(200),
  },
  {
    method: 'DELETE',
    route: '/api/teams/:teamId/members/:userId',
    url: (c) => `/api/teams/${c.teamA}/members/${randomUUID()}`,
    expect: teamAManagers(404),
  },
  // Settings: global admins only (settings.view, settings.edit, settings.delete).
  { method: 'GET', route: '/api/settings/groups', url: () => '/api/settings/groups', expect: adminOnly(200) },
  {
    method: 'GET',
    route: '/api/settings/groups/:groupId',
    url: () => '/api/settings/groups/smtp',
    expect: adminOnly(200),
  },
  {
    method: 'POST',
    route: '/api/settings/groups',
    url: () => '/api/settings/groups',
    body: () => ({ id: `g-${unique()}`, name: 'Made' }),
    expect: adminOnly(201),
  },
  {
    method: 'PUT',
    route: '/api/settings/groups/:groupId',
    url: () => '/api/settings/groups/no-such-group',
    body: () => ({ name: 'x' }),
    expect: adminOnly(404),
  },
  { method: 'GET', route: '/api/settings', url: () => '/api/settings', expect: adminOnly(200) },
  {
    method: 'GET',
    route: '/api/settings/group/:groupId',
    url: () => '/api/settings/group/global',
    expect: adminOnly(200),
  },
  { method: 'GET', route: '/api/settings/health', url: () => '/api/settings/health', expect: adminOnly(200) },
  { method: 'GET', route: '/api/settings/:key', url: () => '/api/settings/smtp.host', expect: adminOnly(200) },
  {
    method: 'POST',
    route: '/api/settings',
    url: () => '/api/settings',
    body: () => ({ key: `made.k${unique()}`, value: 'v' }),
    expect: adminOnly(201),
  },
  {
    method: 'PUT',
    route: '/api/settings/:key',
    url: () => '/api/settings/no.such.key',
    body: () => ({ value: 'v' }),
    expect: adminOnly(404),
  },
  { method: 'DELETE', route: '/api/settings/:key', url: () => '/api/settings/no.such.key', expect: adminOnly(404) },
  {
    method: 'POST',
    route: '/api/settings/search',
    url: () => '/api/settings/search',
    body: () => ({ pattern: 'smtp.*' }),
    expect: adminOnly(200),
  },
  {
    method: 'POST',
    route: '/api/settings/bulk',
    url: () => '/api/settings/bulk',
    body: () => ({ settings: [{ key: `made.b${unique()}`, value: 'v' }] }),
    expect: adminOnly(200),
  },
  // Satellite routes take a satellite API key; the two read routes also take a global admin's session
  // (the admin sees an unknown satellite as 404), and a global admin may queue a command.
  {
    method: 'POST',
    route: '/api/satellites/register',
    url: () => '/api/satellites/register',
    body: () => ({ name: 'edge', capabilities: [], system_info: {} }),
    expect: everyone(401),
  },
  {
    method: 'GET',
    route: '/api/satellites/:id/commands',
    url: () => `/api/satellites/${randomUUID()}/commands`,
    expect: adminOnly(404),
  },
  {
    method: 'POST',
    route: '/api/satellites/:id/commands',
    url: () => `/api/satellites/${randomUUID()}/commands`,
    body: (c) => ({ command_type: 'configure', payload: { team_id: c.teamA, event: 'mcp_recovery' } }),
    expect: adminOnly(404),
  },
  {
    method: 'POST',
    route: '/api/satellites/:id/heartbeat',
    url: () => `/api/satellites/${randomUUID()}/heartbeat`,
    body: () => ({}),
    expect: everyone(401),
  },
  {
    method: 'POST',
    route: '/api/satellites/:id/command-results',
    url: () => `/api/satellites/${randomUUID()}/command-results`,
    body: () => ({}),
    expect: everyone(401),
  },
  {
    method: 'GET',
    route: '/api/satellites/:id/config',
    url: () => `/api/satellites/${randomUUID()}/config`,
    expect: adminOnly(404),
  },
  {
    method: 'POST',
    route: '/api/satellites/:id/oauth/token',
    url: () => `/api/satellites/${randomUUID()}/oauth/token`,
    body: () => ({}),
    expect: everyone(401),
  },
  // The remote servers' OAuth callback and Orbital's client document are public: the callback checks
  // the flow's single-use state and browser binding (without them: back to the console, 303).
  {
    method: 'GET',
    route: '/api/mcp/oauth/callback',
    url: () => '/api/mcp/oauth/callback?state=unknown&code=x',
    expect: everyone(303),
  },
  {
    method: 'GET',
    route: '/api/mcp/oauth/client-metadata.json',
    url: () => '/api/mcp/oauth/client-metadata.json',
    expect: everyone(200),
  },
  // Satellite management: global tokens for global admins, team tokens for the team (global users
  // who are members may generate them), listing scoped by the registry (unknown ids are 404).
  {
    method: 'POST',
    route: '/api/satellites/registration-tokens',
    url: () => '/api/satellites/registration-tokens',
    body: () => ({}),
    expect: adminOnly(201),
  },
  {
    method: 'GET',
    route: '/api/satellites/registration-tokens',
    url: () => '/api/satellites/registration-tokens',
    expect: adminOnly(200),
  },
  {
    method: 'DELETE',
    route: '/api/satellites/registration-tokens/:tokenId',
    url: () => `/api/satellites/registration-tokens/${randomUUID()}`,
    expect: adminOnly(404),
  },
  {
    method: 'POST',
    route: '/api/teams/:teamId/satellites/registration-tokens',
    url: (c) => `/api/teams/${c.teamA}/satellites/registration-tokens`,
    body: () => ({}),
    expect: teamAReaders(201),
  },
  {
    method: 'GET',
    route: '/api/teams/:teamId/satellites/registration-tokens',
    url: (c) => `/api/teams/${c.teamA}/satellites/registration-tokens`,
    expect: teamAManagers(200),
  },
  {
    method: 'DELETE',
    route: '/api/teams/:teamId/satellites/registration-tokens/:tokenId',
    url: (c) => `/api/teams/${c.teamA}/satellites/registration-tokens/${randomUUID()}`,
    expect: teamAManagers(404),
  },
  { method: 'GET', route: '/api/satellites', url: () => '/api/satellites', expect: loggedIn(200) },
  {
    method: 'GET',
    route: '/api/teams/:teamId/satellites',
    url: (c) => `/api/teams/${c.teamA}/satellites`,
    expect: teamAReaders(200),
  },
  { method: 'GET', route: '/api/satellites/:id', url: () => `/api/satellites/${randomUUID()}`, expect: loggedIn(404) },
  {
    method: 'GET',
    route: '/api/satellites/:id/metrics',
    url: () => `/api/satellites/${randomUUID()}/metrics`,
    expect: loggedIn(404),
  },
  {
    method: 'GET',
    route: '/api/satellites/:id/metrics/stream',
    url: () => `/api/satellites/${randomUUID()}/metrics/stream`,
    expect: loggedIn(404),
  },
  // Anyone signed in sees the sessions of their own teams; team_id narrows to a team of theirs.
  {
    method: 'GET',
    route: '/api/users/me/mcp/client-activity',
    url: () => '/api/users/me/mcp/client-activity',
    expect: loggedIn(200),
  },
  {
    method: 'GET',
    route: '/api/users/me/mcp/client-activity/stream',
    url: (c) => `/api/users/me/mcp/client-activity/stream?team_id=${c.teamA}`,
    stream: true,
    expect: teamAReaders(200),
  },
  {
    method: 'DELETE',
    route: '/api/satellites/:id',
    url: () => `/api/satellites/${randomUUID()}`,
    expect: loggedIn(404),
  },
  {
    method: 'PUT',
    route: '/api/satellites/:id/ip-allowlist',
    url: () => `/api/satellites/${randomUUID()}/ip-allowlist`,
    body: () => ({ ip_allowlist: [] }),
    expect: loggedIn(404),
  },
  {
    // Satellites only, with their API key: a user's session is no key. 401 for everyone until the
    // registry's authenticator is wired (then a row per satellite case belongs in its own test).
    method: 'POST',
    route: '/api/satellites/:id/events',
    url: () => '/api/satellites/sat-1/events',
    body: () => ({ events: [crashedEvent()] }),
    expect: everyone(401),
  },
  // MCP server templates: every signed-in user reads, global admins write.
  { method: 'GET', route: '/api/mcp/servers', url: () => '/api/mcp/servers', expect: loggedIn(200) },
  {
    method: 'POST',
    route: '/api/mcp/servers',
    url: () => '/api/mcp/servers',
    body: () => ({ slug: `t-${unique()}`, name: 'Made', transport: 'http', url: 'https://mcp.example.com/mcp' }),
    expect: adminOnly(201),
  },
  {
    method: 'POST',
    route: '/api/mcp/servers/import',
    url: () => '/api/mcp/servers/import',
    body: () => ({
      server: {
        name: `io.example/imported-${unique()}`,
        description: 'Imported from server.json',
        version: '1.0.0',
        remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com/mcp' }],
      },
    }),
    expect: adminOnly(201),
  },
  { method: 'GET', route: '/api/mcp/servers/:slug', url: () => '/api/mcp/servers/no-such', expect: loggedIn(404) },
  {
    method: 'PUT',
    route: '/api/mcp/servers/:slug',
    url: () => '/api/mcp/servers/no-such',
    body: () => ({ name: 'x' }),
    expect: adminOnly(404),
  },
  { method: 'DELETE', route: '/api/mcp/servers/:slug', url: () => '/api/mcp/servers/no-such', expect: adminOnly(404) },
  // Team installations: team members read, team admins write; unknown ids show access was granted.
  {
    method: 'GET',
    route: '/api/teams/:teamId/mcp/installations',
    url: (c) => `/api/teams/${c.teamA}/mcp/installations`,
    expect: teamAReaders(200),
  },
  {
    method: 'POST',
    route: '/api/teams/:teamId/mcp/installations',
    url: (c) => `/api/teams/${c.teamA}/mcp/installations`,
    body: () => ({ server_slug: 'no-such', name: `i-${unique()}` }),
    expect: teamAManagers(404),
  },
  {
    method: 'GET',
    route: '/api/teams/:teamId/mcp/tool-policy',
    url: (c) => `/api/teams/${c.teamA}/mcp/tool-policy`,
    expect: teamAReaders(200),
  },
  {
    method: 'PATCH',
    route: '/api/teams/:teamId/mcp/tool-policy',
    url: (c) => `/api/teams/${c.teamA}/mcp/tool-policy`,
    body: () => ({ server_slug: `absent-${unique()}`, tools: [{ tool_name: 'x', rule: null }] }),
    expect: teamAManagers(200),
  },
  ...installationRows(),
  // Job status: global admins only. No jobs service runs in this stack, so an admin gets through to
  // the bus and hears 503; everyone else is refused before it (the jobs route test covers the 200).
  { method: 'GET', route: '/api/jobs/status', url: () => '/api/jobs/status', expect: adminOnly(503) },
  // The audit log: all of it for global admins, a team's entries for its team admins (not its users).
  { method: 'GET', route: '/api/audit', url: () => '/api/audit?limit=5', expect: adminOnly(200) },
  { method: 'GET', route: '/api/audit/stream', url: () => '/api/audit/stream', stream: true, expect: adminOnly(200) },
  { method: 'GET', route: '/api/audit/export', url: () => '/api/audit/export?format=json', expect: adminOnly(200) },
  {
    method: 'GET',
    route: '/api/teams/:teamId/audit',
    url: (c) => `/api/teams/${c.teamA}/audit`,
    expect: teamAManagers(200),
  },
  {
    method: 'GET',
    route: '/api/teams/:teamId/audit/stream',
    url: (c) => `/api/teams/${c.teamA}/audit/stream`,
    stream: true,
    expect: teamAManagers(200),
  },
  {
    method: 'GET',
    route: '/api/teams/:teamId/audit/export',
    url: (c) => `/api/teams/${c.teamA}/audit/export?format=json`,
    expect: teamAManagers(200),
  },
  // OAuth for satellite clients. Client authentication, not a session, guards token and revocation, so
  // an unknown client is 401 for every caller; the consent endpoints need a session, then a known client.
  {
    method: 'GET',
    route: '/.well-known/oauth-authorization-server',
    url: () => '/.well-known/oauth-authorization-server',
    expect: everyone(200),
  },
  {
    method: 'POST',
    route: '/register',
    url: () => '/register',
    body: () => ({ redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
    errorShape: 'oauth',
    expect: everyone(201),
  },
  {
    method: 'GET',
    route: '/authorize',
    url: () => `/authorize?client_id=orb_client_unknown&${pkceParams}`,
    errorShape: 'oauth',
    expect: loggedIn(400),
  },
  {
    method: 'POST',
    route: '/authorize',
    url: () => '/authorize',
    body: (c) => ({ client_id: 'orb_client_unknown', team_id: c.teamA, decision: 'approve' }),
    errorShape: 'oauth',
    expect: loggedIn(400),
  },
  {
    method: 'POST',
    route: '/token',
    url: () => '/token',
    body: () => ({ grant_type: 'authorization_code', client_id: 'orb_client_unknown', code: 'x', code_verifier: 'y' }),
    errorShape: 'oauth',
    expect: everyone(401),
  },
  {
    method: 'POST',
    route: '/revoke',
    url: () => '/revoke',
    body: () => ({ client_id: 'orb_client_unknown', token: 'x' }),
    errorShape: 'oauth',
    expect: everyone(401),
  },
  // Only a satellite's credential introspects: a user's session token is not one.
  {
    method: 'POST',
    route: '/introspect',
    url: () => '/introspect',
    body: () => ({ token: 'orb_at_x' }),
    errorShape: 'oauth',
    expect: everyone(401),
  },
  // Personal access tokens: only for a team the caller is a member of (global admins included).
  {
    method: 'POST',
    route: '/api/users/me/access-tokens',
    url: () => '/api/users/me/access-tokens',
    body: (c) => ({ team_id: c.teamA, name: `pat-${unique()}` }),
    expect: teamAMembers(201),
  },
  {
    method: 'GET',
    route: '/api/users/me/access-tokens',
    url: () => '/api/users/me/access-tokens',
    expect: loggedIn(200),
  },
  {
    method: 'DELETE',
    route: '/api/users/me/access-tokens/:tokenId',
    url: () => `/api/users/me/access-tokens/${randomUUID()}`,
    expect: loggedIn(404),
  },
  {
    method: 'GET',
    route: '/api/teams/:teamId/access-tokens',
    url: (c) => `/api/teams/${c.teamA}/access-tokens`,
    expect: teamAManagers(200),
  },
  {
    method: 'DELETE',
    route: '/api/teams/:teamId/access-tokens/:tokenId',
    url: (c) => `/api/teams/${c.teamA}/access-tokens/${randomUUID()}`,
    expect: teamAManagers(404),
  },
];

function installationRows(): AccessRow[] {
  const base = '/api/teams/:teamId/mcp/installations/:installationId';
  const url = (suffix: string) => (c: AccessContext) =>
    `/api/teams/${c.teamA}/mcp/installations/${randomUUID()}${suffix}`;
  const read = (suffix: string): AccessRow => ({
    method: 'GET',
    route: `${base}${suffix}`,
    url: url(suffix),
    expect: teamAReaders(404),
  });
  return [
    read(''),
    { method: 'PUT', route: base, url: url(''), body: () => ({ args: [] }), expect: teamAManagers(404) },
    { method: 'DELETE', route: base, url: url(''), expect: teamAManagers(404) },
    // The user level is the member's own: a global admin outside the team has none.
    {
      method: 'PUT',
      route: `${base}/user-config`,
      url: url('/user-config'),
      body: () => ({ args: [] }),
      expect: { ...teamAReaders(404), global_admin: 403 },
    },
    read('/status'),
    read('/logs'),
    read('/requests'),
    {
      method: 'GET',
      route: `${base}/requests/:requestId`,
      url: (c) => `/api/teams/${c.teamA}/mcp/installations/${randomUUID()}/requests/${randomUUID()}`,
      expect: teamAReaders(404),
    },
    {
      method: 'PATCH',
      route: `${base}/settings`,
      url: url('/settings'),
      body: () => ({ request_logging_enabled: true }),
      expect: teamAManagers(404),
    },
    read('/tool-policy'),
    read('/tool-definitions'),
    {
      method: 'POST',
      route: `${base}/tool-definitions/approve`,
      url: url('/tool-definitions/approve'),
      body: () => ({ tool_name: 'x', definition_hash: 'a'.repeat(64) }),
      expect: teamAManagers(404),
    },
    {
      method: 'PATCH',
      route: `${base}/tool-policy`,
      url: url('/tool-policy'),
      body: () => ({}),
      expect: teamAManagers(404),
    },
    read('/oauth'),
    { method: 'POST', route: `${base}/oauth/authorize`, url: url('/oauth/authorize'), expect: teamAReaders(404) },
    { method: 'DELETE', route: `${base}/oauth`, url: url('/oauth'), expect: teamAReaders(404) },
    read('/status/stream'),
    read('/logs/stream'),
    read('/requests/stream'),
  ];
}
