import { randomUUID } from 'node:crypto';
import {
  auditSubjects,
  databaseOwners,
  dbSetupSubject,
  dbStatusSubject,
  identitySatelliteOfflineNoticeSubject,
  identityTeamGetSubject,
  installationSubjects as installations,
  installationsConfigForSatelliteSubject,
  jobsStatusSubject,
  jobWorkSubjects,
  migrateSubjects,
  processNames,
  registrySubjects as registry,
  remoteOAuthSubjects as remoteOAuth,
  type SubjectDef,
  settingsSubjects as settings,
  toolPolicySubjects as toolPolicy,
} from '@orbital/contracts';
import { auditEntryFixture } from './auditEntryFixture.ts';
import { heartbeatWithProcesses } from './satelliteHarness.ts';

/**
 * Who may send what, for every request/reply subject of the platform: the table the subject access
 * test runs against the real services, beside the route table (accessMatrix.ts). It is written out by
 * hand, not derived from the declarations it checks; a subject added later joins by adding a row (the
 * test fails while a subject of the catalogue has none).
 *
 * Callers, set up by the test (subjectAccess.int.test.ts): the people of the route table; `satellite`,
 * a satellite of team A acting on itself; `other_satellite`, a satellite of team A naming another's id;
 * and every platform process with its own identity.
 *
 * Outcomes: `ok` (admitted: whatever the handler answers but a refusal), `refused` (unauthenticated
 * for anonymous callers, forbidden for the others), `hidden` (not_found: a record of a team the caller
 * may not see is not said to exist). Requests aim where an admitted caller changes nothing that matters
 * to the other rows (unknown ids, fresh names), so rows can run in any order.
 */
export const userCallers = ['anonymous', 'global_admin', 'team_admin', 'team_user', 'other_team', 'no_team'] as const;
export const subjectCallers = [...userCallers, 'satellite', 'other_satellite', ...processNames] as const;
export type SubjectCaller = (typeof subjectCallers)[number];
export type Outcome = 'ok' | 'refused' | 'hidden';

export type SubjectContext = {
  teamA: string;
  teamB: string;
  /** Satellites of team A: one every row uses, one a revocation row revokes. */
  satelliteId: string;
  doomedSatelliteId: string;
  globalSatelliteId: string;
};

export type SubjectRow = {
  def: SubjectDef;
  /** Tells rows of one subject apart (a team's token and a global one). */
  variant?: string;
  request: (ctx: SubjectContext) => unknown;
  /** `public`: every caller gets the same answer, whatever it is. */
  expect: Partial<Record<SubjectCaller, Outcome>> | 'public';
};

/** The given callers are admitted, every other one refused. */
function only(...callers: SubjectCaller[]): Partial<Record<SubjectCaller, Outcome>> {
  return Object.fromEntries(subjectCallers.map((c) => [c, callers.includes(c) ? 'ok' : 'refused']));
}

const signedIn: SubjectCaller[] = ['global_admin', 'team_admin', 'team_user', 'other_team', 'no_team'];
const teamAMembers: SubjectCaller[] = ['global_admin', 'team_admin', 'team_user'];
const teamAAdmins: SubjectCaller[] = ['global_admin', 'team_admin'];
const unique = () => randomUUID().slice(0, 8);
const tickAt = () => new Date(Date.now() - 3_600_000).toISOString();
const installationRef = (ctx: SubjectContext) => ({ team_id: ctx.teamA, installation_id: randomUUID() });
const heartbeat = heartbeatWithProcesses([]);
/** The satellite rows: its own id admitted, any other id refused, nobody else admitted. */
const ownSatellite = { ...only('satellite'), other_satellite: 'refused' } as const;
/** A satellite's reads: the satellite itself, and a global admin looking at it. */
const ownOrGlobalAdmin = { ...only('satellite', 'global_admin'), other_satellite: 'refused' } as const;

export const subjectMatrix: SubjectRow[] = [
  // Database setup runs before any user exists; it has run, so setup is a conflict for everyone.
  { def: dbStatusSubject, request: () => ({}), expect: 'public' },
  { def: dbSetupSubject, request: () => ({ type: 'postgresql' }), expect: 'public' },
  ...databaseOwners.map((owner) => ({ def: migrateSubjects[owner], request: () => ({}), expect: only('settings') })),

  // Settings: global admins; plaintext values for the processes that read settings.
  { def: settings.listGroups, request: () => ({}), expect: only('global_admin') },
  { def: settings.getGroup, request: () => ({ group_id: 'smtp' }), expect: only('global_admin') },
  { def: settings.createGroup, request: () => ({ id: `g-${unique()}`, name: 'Matrix' }), expect: only('global_admin') },
  {
    def: settings.updateGroup,
    request: () => ({ group_id: 'no-such-group', changes: { name: 'x' } }),
    expect: only('global_admin'),
  },
  { def: settings.listSettings, request: () => ({}), expect: only('global_admin') },
  { def: settings.listGroupSettings, request: () => ({ group_id: 'global' }), expect: only('global_admin') },
  { def: settings.getSetting, request: () => ({ key: 'smtp.host' }), expect: only('global_admin') },
  {
    def: settings.createSetting,
    request: () => ({ key: `matrix.k${unique()}`, value: 'v' }),
    expect: only('global_admin'),
  },
  {
    def: settings.updateSetting,
    request: () => ({ key: 'no.such.key', changes: { value: '1' } }),
    expect: only('global_admin'),
  },
  { def: settings.deleteSetting, request: () => ({ key: 'no.such.key' }), expect: only('global_admin') },
  { def: settings.searchSettings, request: () => ({ pattern: 'smtp.*' }), expect: only('global_admin') },
  {
    def: settings.bulkSettings,
    request: () => ({ settings: [{ key: `matrix.b${unique()}`, value: '1' }] }),
    expect: only('global_admin'),
  },
  { def: settings.health, request: () => ({}), expect: only('global_admin') },
  {
    def: settings.getValues,
    request: () => ({ keys: ['smtp.port'] }),
    expect: only('gateway-api', 'satellite-registry'),
  },

  // Identity facts, for the service that needs a team's slug.
  { def: identityTeamGetSubject, request: (c) => ({ team_id: c.teamA }), expect: only('installations') },
  // The registry's notice that a satellite went offline (mail is off in this stack: nothing is queued).
  {
    def: identitySatelliteOfflineNoticeSubject,
    request: () => ({
      satellite_id: randomUUID(),
      name: 'matrix',
      satellite_type: 'global',
      team_id: null,
      last_heartbeat_at: new Date().toISOString(),
    }),
    expect: only('satellite-registry'),
  },

  // Registration tokens: global ones for global admins; a team's for who may register or manage there.
  {
    def: registry.createToken,
    variant: 'global',
    request: () => ({ target: { scope: 'global' }, options: { expires_in_minutes: 5 } }),
    expect: only('global_admin'),
  },
  {
    def: registry.createToken,
    variant: 'team',
    request: (c) => ({ target: { scope: 'team', team_id: c.teamA }, options: { expires_in_minutes: 5 } }),
    expect: only(...teamAMembers),
  },
  {
    def: registry.listTokens,
    variant: 'global',
    request: () => ({ target: { scope: 'global' } }),
    expect: only('global_admin'),
  },
  {
    def: registry.listTokens,
    variant: 'team',
    request: (c) => ({ target: { scope: 'team', team_id: c.teamA } }),
    expect: only(...teamAAdmins),
  },
  {
    def: registry.revokeToken,
    request: (c) => ({ target: { scope: 'team', team_id: c.teamA }, token_id: randomUUID() }),
    expect: only(...teamAAdmins),
  },
  // Registration is public: the token in the header is the credential, checked by the registry.
  {
    def: registry.register,
    request: () => ({ authorization: null, client_ip: '127.0.0.1', body: { name: 'matrix' } }),
    expect: 'public',
  },
  { def: registry.lookupApiKey, request: () => ({ key_id: 'sk_unknown' }), expect: only('gateway-api') },
  {
    def: registry.rememberApiKeyDigest,
    request: () => ({ key_id: 'sk_unknown', api_key_hash: '$argon2id$unknown', api_key_digest: 'sha256:unknown' }),
    expect: only('gateway-api'),
  },
  // A satellite's own subjects: that satellite alone.
  {
    def: registry.heartbeat,
    request: (c) => ({ satellite_id: c.satelliteId, heartbeat }),
    expect: ownSatellite,
  },
  { def: registry.pollCommands, request: (c) => ({ satellite_id: c.satelliteId, limit: 1 }), expect: ownOrGlobalAdmin },
  {
    def: registry.reportResult,
    request: (c) => ({ satellite_id: c.satelliteId, result: { command_id: randomUUID(), status: 'acknowledged' } }),
    expect: ownSatellite,
  },
  { def: registry.getConfiguration, request: (c) => ({ satellite_id: c.satelliteId }), expect: ownOrGlobalAdmin },
  // Commands: the installations service, and global admins.
  {
    def: registry.createCommand,
    request: (c) => ({
      command_type: 'configure',
      payload: { team_id: c.teamB, event: 'mcp_installation_updated', installation_id: randomUUID() },
    }),
    expect: only('global_admin', 'installations'),
  },
  {
    def: registry.getCommand,
    request: () => ({ command_id: randomUUID() }),
    expect: only('global_admin', 'installations'),
  },
  // Satellites for people: every signed-in user lists what they may see; one team's list needs its view.
  { def: registry.listSatellites, variant: 'all', request: () => ({}), expect: only(...signedIn) },
  {
    def: registry.listSatellites,
    variant: 'team',
    request: (c) => ({ team_id: c.teamA }),
    expect: only(...teamAMembers),
  },
  {
    def: registry.getSatellite,
    request: (c) => ({ satellite_id: c.satelliteId }),
    expect: { ...only(...teamAMembers), other_team: 'hidden', no_team: 'hidden' },
  },
  {
    def: registry.getMetrics,
    request: (c) => ({ satellite_id: c.satelliteId, query: {} }),
    expect: { ...only(...teamAMembers), other_team: 'hidden', no_team: 'hidden' },
  },
  // A global satellite serves every team: members of any team see it, global admins manage it.
  {
    def: registry.getSatellite,
    variant: 'global',
    request: (c) => ({ satellite_id: c.globalSatelliteId }),
    expect: { ...only(...signedIn), no_team: 'hidden' },
  },
  {
    def: registry.updateAllowlist,
    variant: 'global',
    request: (c) => ({ satellite_id: c.globalSatelliteId, ip_allowlist: [] }),
    expect: { ...only('global_admin'), no_team: 'hidden' },
  },
  {
    def: registry.updateAllowlist,
    request: (c) => ({ satellite_id: c.satelliteId, ip_allowlist: [] }),
    expect: { ...only(...teamAAdmins), team_user: 'refused', other_team: 'hidden', no_team: 'hidden' },
  },
  {
    def: registry.revokeSatellite,
    request: (c) => ({ satellite_id: c.doomedSatelliteId }),
    expect: { ...only(...teamAAdmins), team_user: 'refused', other_team: 'hidden', no_team: 'hidden' },
  },
  {
    def: installationsConfigForSatelliteSubject,
    request: () => ({ team_ids: [] }),
    expect: only('satellite-registry'),
  },

  // The catalogue: every signed-in user reads, global admins write.
  { def: installations.listTemplates, request: () => ({}), expect: only(...signedIn) },
  { def: installations.getTemplate, request: () => ({ slug: 'no-such-template' }), expect: only(...signedIn) },
  {
    def: installations.createTemplate,
    request: () => ({ slug: `matrix-${unique()}`, name: 'Matrix', transport: 'stdio', command: 'true' }),
    expect: only('global_admin'),
  },
  {
    def: installations.updateTemplate,
    request: () => ({ slug: 'no-such-template', changes: { name: 'x' } }),
    expect: only('global_admin'),
  },
  { def: installations.deleteTemplate, request: () => ({ slug: 'no-such-template' }), expect: only('global_admin') },
  // A team's installations: its members read, its admins write.
  { def: installations.listInstallations, request: (c) => ({ team_id: c.teamA }), expect: only(...teamAMembers) },
  { def: installations.getInstallation, request: installationRef, expect: only(...teamAMembers) },
  {
    def: installations.createInstallation,
    request: (c) => ({ team_id: c.teamA, installation: { server_slug: 'no-such-template', name: 'matrix' } }),
    expect: only(...teamAAdmins),
  },
  {
    def: installations.updateInstallation,
    request: (c) => ({ ...installationRef(c), changes: { name: 'matrix' } }),
    expect: only(...teamAAdmins),
  },
  { def: installations.deleteInstallation, request: installationRef, expect: only(...teamAAdmins) },
  // A user level belongs to a member of the team, whatever their global role.
  {
    def: installations.putUserConfig,
    request: (c) => ({ ...installationRef(c), config: {} }),
    expect: only('team_admin', 'team_user'),
  },
  { def: installations.getStatus, request: installationRef, expect: only(...teamAMembers) },
  {
    def: installations.listLogs,
    request: (c) => ({ ...installationRef(c), query: {} }),
    expect: only(...teamAMembers),
  },
  {
    def: installations.listRequests,
    request: (c) => ({ ...installationRef(c), query: {} }),
    expect: only(...teamAMembers),
  },
  {
    def: installations.getRequest,
    request: (c) => ({ ...installationRef(c), request_id: randomUUID() }),
    expect: only(...teamAMembers),
  },
  {
    def: installations.updateSettings,
    request: (c) => ({ ...installationRef(c), settings: { request_logging_enabled: true } }),
    expect: only(...teamAAdmins),
  },
  // Remote servers' OAuth: team members for themselves (the team's token: the handler asks for a team
  // admin), the redirect back for anyone (the single-use state and the browser binding are checked), and
  // tokens for a satellite acting on itself.
  { def: remoteOAuth.getStatus, request: installationRef, expect: only(...teamAMembers) },
  {
    def: remoteOAuth.start,
    request: (c) => ({
      ...installationRef(c),
      redirect_uri: 'http://localhost:3000/api/mcp/oauth/callback',
      client_metadata_url: 'http://localhost:3000/api/mcp/oauth/client-metadata.json',
    }),
    expect: only(...teamAMembers),
  },
  {
    def: remoteOAuth.complete,
    request: () => ({ state: 'unknown', browser_binding: 'none', code: 'x' }),
    expect: 'public',
  },
  {
    def: remoteOAuth.disconnect,
    request: (c) => ({ ...installationRef(c), owner: 'me' }),
    expect: only(...teamAMembers),
  },
  {
    def: remoteOAuth.tokenForSatellite,
    request: (c) => ({
      satellite_id: c.satelliteId,
      installation_id: randomUUID(),
      user_id: null,
      purpose: 'call',
      console_url: 'http://localhost:3000',
    }),
    expect: ownSatellite,
  },
  // Tool rules: team members read, team admins change, per installation and for the team.
  { def: toolPolicy.get, request: installationRef, expect: only(...teamAMembers) },
  { def: toolPolicy.update, request: (c) => ({ ...installationRef(c), changes: {} }), expect: only(...teamAAdmins) },
  { def: toolPolicy.listDefinitions, request: installationRef, expect: only(...teamAMembers) },
  {
    def: toolPolicy.approveDefinition,
    request: (c) => ({ ...installationRef(c), tool_name: 'x', definition_hash: 'a'.repeat(64) }),
    expect: only(...teamAAdmins),
  },
  { def: toolPolicy.listTeam, request: (c) => ({ team_id: c.teamA }), expect: only(...teamAMembers) },
  {
    def: toolPolicy.updateTeam,
    request: (c) => ({
      team_id: c.teamA,
      changes: { server_slug: `absent-${unique()}`, tools: [{ tool_name: 'x', rule: null }] },
    }),
    expect: only(...teamAAdmins),
  },
  { def: installations.listClientActivity, variant: 'all', request: () => ({ query: {} }), expect: only(...signedIn) },
  {
    def: installations.listClientActivity,
    variant: 'team',
    request: (c) => ({ query: { team_id: c.teamA } }),
    expect: only(...teamAMembers),
  },

  // The schedules' work: the jobs service alone. Their status: operators.
  {
    def: jobWorkSubjects.credentialValidation,
    request: () => ({ tick_at: tickAt() }),
    expect: only('jobs'),
  },
  { def: jobWorkSubjects.templateHealth, request: () => ({ tick_at: tickAt() }), expect: only('jobs') },
  { def: jobWorkSubjects.logCleanup, request: () => ({}), expect: only('jobs') },
  { def: jobsStatusSubject, request: () => ({}), expect: only('global_admin') },

  // The audit log: its owners deliver entries, the schedule prunes; global admins read all of it, a
  // team's admins their team's entries.
  {
    def: auditSubjects.record,
    request: () => ({
      entries: [
        auditEntryFixture({
          action: 'team.updated',
          actor: { kind: 'anonymous', id: null, email: null, name: null },
          target: { kind: 'team', id: null },
        }),
      ],
    }),
    expect: only('gateway-api', 'settings', 'satellite-registry', 'installations'),
  },
  { def: auditSubjects.list, variant: 'all', request: () => ({}), expect: only('global_admin') },
  {
    def: auditSubjects.list,
    variant: 'team',
    request: (c) => ({ team_id: c.teamA }),
    expect: only(...teamAAdmins),
  },
  { def: auditSubjects.prune, request: () => ({}), expect: only('jobs') },
];
