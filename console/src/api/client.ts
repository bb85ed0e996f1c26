/**
 * The console's only way to the platform: every call of the public API and every SSE stream URL is
 * here, typed with the API's own schemas from libs/contracts (type-only imports: no schema code reaches
 * the browser). The browser's session cookie (HttpOnly, SameSite=Strict) authenticates every call; the
 * console never holds a token.
 */
import type {
  AcceptInvitationBody,
  AccessTokenView,
  AddMemberBody,
  AuditPage,
  AuditQuery,
  ChangePasswordBody,
  ClientActivityPage,
  CreatedAccessToken,
  CreateInvitationBody,
  CreateTeamBody,
  CreateUserBody,
  createdRegistrationToken,
  GroupWithSettings,
  InstallationStatusView,
  InstallationView,
  InvitationPreview,
  InvitationView,
  installationCreate,
  ListUsersQuery,
  LoginBody,
  LoginReply,
  MailRequestedReply,
  MemberView,
  MeView,
  OAuthStatusView,
  RegisterBody,
  RegistrationTokenView,
  RequestLogPage,
  ResetPasswordBody,
  SatelliteMetrics,
  SatelliteView,
  ScheduleStatus,
  ServerLogPage,
  SettingView,
  SignInMethods,
  TeamRole,
  TeamView,
  TemplateInput,
  TemplateView,
  ToolDefinitionsView,
  ToolPolicyUpdate,
  ToolPolicyView,
  templateCreate,
  UpdateUserBody,
  UserPage,
  UserView,
} from '@orbital/contracts';
import type { z } from 'zod';

// The API's own types, for the pages: one import site for everything about the API.
export type * from '@orbital/contracts';
export type CreatedRegistrationToken = z.infer<typeof createdRegistrationToken>;
export type InstallationCreate = z.input<typeof installationCreate>;
export type TemplateCreate = z.input<typeof templateCreate>;
export type RequestLogItem = RequestLogPage['items'][number];
export type ServerLogLine = ServerLogPage['items'][number];

/** An error answer of the API: its code, message, and the message of each bad field by its name. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Field name (the request body's, without the `body.` prefix) to its message. */
  readonly fields: Record<string, string>;
  readonly instructions: string | undefined;

  constructor(status: number, code: string, message: string, fields: Record<string, string>, instructions?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.instructions = instructions;
  }
}

type ErrorBody = {
  success?: false;
  error?: { code?: string; message?: string; details?: unknown; instructions?: string };
};

function fieldErrorsOf(details: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!Array.isArray(details)) return fields;
  for (const item of details) {
    if (typeof item !== 'object' || item === null) continue;
    const { path, message } = item as { path?: unknown; message?: unknown };
    if (typeof path !== 'string' || typeof message !== 'string') continue;
    const name = path.replace(/^(body|query|params)\./, '');
    fields[name] ??= message;
  }
  return fields;
}

let onUnauthenticated: () => void = () => {};

/** Called when a request answers 401: the session ended (expired, revoked, logged out elsewhere). */
export function setUnauthenticatedHandler(handler: () => void): void {
  onUnauthenticated = handler;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'unavailable', 'The platform cannot be reached; check your connection and try again.', {});
  }
  const json = (await response.json().catch(() => null)) as ({ success?: boolean; data?: T } & ErrorBody) | null;
  if (!response.ok || json?.success === false) {
    const error = json?.error ?? {};
    if (response.status === 401 && path !== '/api/auth/login') onUnauthenticated();
    throw new ApiError(
      response.status,
      error.code ?? 'internal',
      error.message ?? `The platform answered ${response.status}`,
      fieldErrorsOf(error.details),
      error.instructions,
    );
  }
  return json?.data as T;
}

/** `?a=1&b=2` of the given values, leaving out those not given; empty without any. */
function queryString(values: Record<string, string | number | undefined>): string {
  const entries = Object.entries(values).filter((entry): entry is [string, string | number] => entry[1] !== undefined);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
}

const team = (teamId: string) => `/api/teams/${encodeURIComponent(teamId)}`;
const installation = (teamId: string, installationId: string) =>
  `${team(teamId)}/mcp/installations/${encodeURIComponent(installationId)}`;
const satellite = (id: string) => `/api/satellites/${encodeURIComponent(id)}`;
/** The whole audit log (global admins), or one team's entries (its admins). */
const audit = (teamId: string | null) => (teamId ? `${team(teamId)}/audit` : '/api/audit');

/** The filters of the audit log as the console sends them (a team's path names the team itself). */
export type AuditFilters = Partial<Omit<AuditQuery, 'limit' | 'cursor' | 'team_id'>>;

export const api = {
  login: (body: LoginBody) => call<LoginReply>('POST', '/api/auth/login', body),
  register: (body: RegisterBody) => call<MailRequestedReply>('POST', '/api/auth/register', body),
  verifyEmail: (body: { token: string; password: string }) => call<LoginReply>('POST', '/api/auth/verify-email', body),
  resendVerification: (email: string) => call<MailRequestedReply>('POST', '/api/auth/verify-email/resend', { email }),
  requestPasswordReset: (email: string) => call<MailRequestedReply>('POST', '/api/auth/password-reset', { email }),
  resetPassword: (body: ResetPasswordBody) =>
    call<{ reset: true; email: string }>('POST', '/api/auth/password-reset/confirm', body),
  invitations: {
    list: (teamId: string) => call<InvitationView[]>('GET', `${team(teamId)}/invitations`),
    create: (teamId: string, body: CreateInvitationBody) =>
      call<InvitationView>('POST', `${team(teamId)}/invitations`, body),
    revoke: (teamId: string, id: string) =>
      call<{ revoked: true }>('DELETE', `${team(teamId)}/invitations/${encodeURIComponent(id)}`),
    preview: (token: string) => call<InvitationPreview>('POST', '/api/invitations/preview', { token }),
    acceptAsNew: (body: AcceptInvitationBody) => call<LoginReply>('POST', '/api/invitations/accept', body),
    acceptAsMe: (token: string) =>
      call<{ team_id: string; team_name: string; role: TeamRole }>('POST', '/api/users/me/invitations/accept', {
        token,
      }),
  },
  logout: () => call<{ logged_out: true }>('POST', '/api/auth/logout'),
  me: () => call<MeView>('GET', '/api/users/me'),
  signInMethods: () => call<SignInMethods>('GET', '/api/auth/methods'),

  settings: {
    groups: () => call<GroupWithSettings[]>('GET', '/api/settings/groups'),
    list: () => call<SettingView[]>('GET', '/api/settings'),
    update: (key: string, value: string) =>
      call<SettingView>('PUT', `/api/settings/${encodeURIComponent(key)}`, { value }),
  },

  users: {
    list: (query: ListUsersQuery = {}) => call<UserPage>('GET', `/api/users${queryString(query)}`),
    create: (body: CreateUserBody) => call<UserView>('POST', '/api/users', body),
    update: (userId: string, body: UpdateUserBody) =>
      call<UserView>('PUT', `/api/users/${encodeURIComponent(userId)}`, body),
    remove: (userId: string) => call<{ deleted: true }>('DELETE', `/api/users/${encodeURIComponent(userId)}`),
    changePassword: (body: ChangePasswordBody) =>
      call<{ changed: true; other_sessions_revoked: true }>('PUT', '/api/users/me/password', body),
  },

  teams: {
    list: () => call<TeamView[]>('GET', '/api/teams'),
    get: (teamId: string) => call<TeamView>('GET', team(teamId)),
    create: (body: CreateTeamBody) => call<TeamView>('POST', '/api/teams', body),
    remove: (teamId: string) => call<{ deleted: true }>('DELETE', team(teamId)),
    members: (teamId: string) => call<MemberView[]>('GET', `${team(teamId)}/members`),
    addMember: (teamId: string, body: AddMemberBody) => call<MemberView>('POST', `${team(teamId)}/members`, body),
    changeRole: (teamId: string, userId: string, role: TeamRole) =>
      call<MemberView>('PUT', `${team(teamId)}/members/${encodeURIComponent(userId)}`, { role }),
    removeMember: (teamId: string, userId: string) =>
      call<{ removed: true }>('DELETE', `${team(teamId)}/members/${encodeURIComponent(userId)}`),
  },

  satellites: {
    list: () => call<SatelliteView[]>('GET', '/api/satellites'),
    get: (id: string) => call<SatelliteView>('GET', satellite(id)),
    revoke: (id: string) => call<SatelliteView>('DELETE', satellite(id)),
    globalTokens: () => call<RegistrationTokenView[]>('GET', '/api/satellites/registration-tokens'),
    createGlobalToken: (body: { expires_in_minutes?: number; description?: string }) =>
      call<CreatedRegistrationToken>('POST', '/api/satellites/registration-tokens', body),
    revokeGlobalToken: (tokenId: string) =>
      call<RegistrationTokenView>('DELETE', `/api/satellites/registration-tokens/${encodeURIComponent(tokenId)}`),
    teamTokens: (teamId: string) =>
      call<RegistrationTokenView[]>('GET', `${team(teamId)}/satellites/registration-tokens`),
    createTeamToken: (teamId: string, body: { expires_in_minutes?: number; description?: string }) =>
      call<CreatedRegistrationToken>('POST', `${team(teamId)}/satellites/registration-tokens`, body),
    revokeTeamToken: (teamId: string, tokenId: string) =>
      call<RegistrationTokenView>(
        'DELETE',
        `${team(teamId)}/satellites/registration-tokens/${encodeURIComponent(tokenId)}`,
      ),
  },

  catalogue: {
    list: () => call<TemplateView[]>('GET', '/api/mcp/servers'),
    get: (slug: string) => call<TemplateView>('GET', `/api/mcp/servers/${encodeURIComponent(slug)}`),
    create: (body: TemplateCreate) => call<TemplateView>('POST', '/api/mcp/servers', body),
    remove: (slug: string) => call<{ deleted: true }>('DELETE', `/api/mcp/servers/${encodeURIComponent(slug)}`),
    /** A template from an MCP Registry server.json document, and what each installation must provide. */
    importServerJson: (body: { server: unknown; slug?: string }) =>
      call<{ template: TemplateView; inputs: TemplateInput[] }>('POST', '/api/mcp/servers/import', body),
  },

  installations: {
    list: (teamId: string) => call<InstallationView[]>('GET', `${team(teamId)}/mcp/installations`),
    get: (teamId: string, id: string) => call<InstallationView>('GET', installation(teamId, id)),
    create: (teamId: string, body: InstallationCreate) =>
      call<InstallationView>('POST', `${team(teamId)}/mcp/installations`, body),
    remove: (teamId: string, id: string) => call<{ deleted: true }>('DELETE', installation(teamId, id)),
    updateSettings: (teamId: string, id: string, settings: { request_logging_enabled: boolean }) =>
      call<InstallationView>('PATCH', `${installation(teamId, id)}/settings`, settings),
    toolPolicy: (teamId: string, id: string) => call<ToolPolicyView>('GET', `${installation(teamId, id)}/tool-policy`),
    updateToolPolicy: (teamId: string, id: string, changes: ToolPolicyUpdate) =>
      call<ToolPolicyView>('PATCH', `${installation(teamId, id)}/tool-policy`, changes),
    toolDefinitions: (teamId: string, id: string) =>
      call<ToolDefinitionsView>('GET', `${installation(teamId, id)}/tool-definitions`),
    approveToolDefinition: (teamId: string, id: string, toolName: string, hash: string) =>
      call<ToolDefinitionsView>('POST', `${installation(teamId, id)}/tool-definitions/approve`, {
        tool_name: toolName,
        definition_hash: hash,
      }),
    oauthStatus: (teamId: string, id: string) => call<OAuthStatusView>('GET', `${installation(teamId, id)}/oauth`),
    /** Starts authorizing at the server's authorization server: the browser is to go to the answered URL. */
    authorize: (teamId: string, id: string) =>
      call<{ authorization_url: string; expires_at: string }>('POST', `${installation(teamId, id)}/oauth/authorize`),
    disconnect: (teamId: string, id: string, owner: string) =>
      call<{ deleted: boolean }>('DELETE', `${installation(teamId, id)}/oauth${queryString({ owner })}`),
  },

  accessTokens: {
    list: () => call<AccessTokenView[]>('GET', '/api/users/me/access-tokens'),
    create: (body: { team_id: string; name: string; expires_in_days?: number }) =>
      call<CreatedAccessToken>('POST', '/api/users/me/access-tokens', body),
  },

  clientActivity: () => call<ClientActivityPage>('GET', '/api/users/me/mcp/client-activity?limit=20'),

  jobs: { status: () => call<ScheduleStatus[]>('GET', '/api/jobs/status') },

  audit: {
    page: (teamId: string | null, filters: AuditFilters, cursor?: string) =>
      call<AuditPage>('GET', `${audit(teamId)}${queryString({ ...filters, limit: 50, cursor })}`),
    /** A download link: the browser sends the session cookie; the file is written as the log is read. */
    exportUrl: (teamId: string | null, filters: AuditFilters, format: 'csv' | 'json') =>
      `${audit(teamId)}/export${queryString({ ...filters, format })}`,
  },
};

/**
 * Server-sent event streams (the REST twin's answer as `snapshot`, then `update` events). The browser's
 * EventSource sends the session cookie and replays missed events with Last-Event-ID on reconnect.
 */
export const streams = {
  installationStatus: (teamId: string, id: string) => `${installation(teamId, id)}/status/stream`,
  installationLogs: (teamId: string, id: string) => `${installation(teamId, id)}/logs/stream?limit=200`,
  installationRequests: (teamId: string, id: string) => `${installation(teamId, id)}/requests/stream?limit=100`,
  satelliteMetrics: (id: string) => `${satellite(id)}/metrics/stream?limit=60`,
  clientActivity: () => '/api/users/me/mcp/client-activity/stream?limit=20',
  audit: (teamId: string | null, filters: AuditFilters) =>
    `${audit(teamId)}/stream${queryString({ ...filters, limit: 50 })}`,
};

/** What each stream's `update` event carries. */
export type StreamUpdates = {
  installationStatus: InstallationStatusView;
  installationLogs: { items: ServerLogLine[] };
  installationRequests: { items: RequestLogItem[] };
  satelliteMetrics: Pick<SatelliteMetrics, 'heartbeats' | 'processes'>;
  clientActivity: Pick<ClientActivityPage, 'items'>;
  audit: AuditPage['entries'][number];
};
