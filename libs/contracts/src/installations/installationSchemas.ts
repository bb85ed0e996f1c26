import { z } from 'zod';
import { teamIdField, uuidField } from '../ids.ts';
import { isoTimestamp, recordTimestamps } from '../isoTimestamp.ts';
import { installationStatus } from '../satellite/installationStatus.ts';
import { installationSettings, mcpTransport, slug } from '../satellite/serverConfiguration.ts';
import { templateOAuth } from './remoteOAuth.ts';
import { isTransportOwnedHeader } from './transportOwnedHeaders.ts';

const uuid = uuidField();

/** Environment variable names as shells accept them; header names as HTTP allows them. */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and "_", not starting with a digit');
const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'a valid HTTP header name')
  .refine((name) => !isTransportOwnedHeader(name), 'a header the MCP transport sets itself; it cannot be configured');
const value = z.string().max(8192);
// Refused here because the process spawn and the fetch that would use such a value throw an error that
// quotes it, and these values are secrets: an environment value cannot hold NUL, a header value neither
// NUL nor a line break.
const envValue = value.regex(/^[^\0]*$/, 'must not contain a NUL character');
const headerValue = value.regex(/^[^\0\r\n]*$/, 'must not contain a line break or a NUL character');
const argList = z.array(z.string().max(4096)).max(200);
// A refused name is reported with its key schema's own message (zod's is "Invalid key in record").
const keyMessage = { error: (issue: { code?: string; issues?: { message: string }[] }) => issue.issues?.[0]?.message };
export const envMap = z.record(envName, envValue, keyMessage);
export const headerMap = z.record(headerName, headerValue, keyMessage);

function requireTransportFields(
  template: {
    transport?: string | undefined;
    command?: string | null | undefined;
    url?: string | null | undefined;
    oauth?: unknown;
  },
  ctx: z.RefinementCtx,
) {
  if (template.transport === 'stdio' && !template.command) {
    ctx.addIssue({ code: 'custom', path: ['command'], message: 'a stdio server needs a command' });
  }
  if ((template.transport === 'http' || template.transport === 'sse') && !template.url) {
    ctx.addIssue({ code: 'custom', path: ['url'], message: `an ${template.transport} server needs a url` });
  }
  if (template.transport === 'stdio' && template.oauth) {
    ctx.addIssue({ code: 'custom', path: ['oauth'], message: 'only a remote (http or sse) server can need OAuth' });
  }
}

// ---- MCP server templates (the catalogue) ----

export const templateView = z.object({
  id: uuid,
  slug,
  name: z.string(),
  description: z.string().nullable(),
  transport: mcpTransport,
  command: z.string().nullable(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  url: z.string().nullable(),
  headers: z.record(z.string(), z.string()),
  /** Set when the remote server is an OAuth-protected resource: calls carry a token Orbital obtained. */
  oauth: templateOAuth.nullable(),
  /** True for templates of servers the project's tests never reached (public servers on the internet). */
  untested: z.boolean(),
  /** The vendor's documentation of the server: its URL and how it authenticates come from there. */
  documentation_url: z.string().nullable(),
  /** Aggregated over the template's installations by the template health job: healthy, unhealthy or unknown. */
  health_status: z.string().nullable(),
  last_health_check_at: isoTimestamp.nullable(),
  health_check_error: z.string().nullable(),
  ...recordTimestamps,
});
export type TemplateView = z.infer<typeof templateView>;

const templateFields = {
  name: z.string().min(1).max(200),
  description: z.string().max(4000).nullable().optional(),
  transport: mcpTransport,
  command: z.string().min(1).max(1000).nullable().optional(),
  args: argList.optional(),
  env: envMap.optional(),
  // Satellites connect to it: http or https only (no file:, ftp:, gopher: ...).
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .max(2000)
    .nullable()
    .optional(),
  headers: headerMap.optional(),
  oauth: templateOAuth.nullable().optional(),
  untested: z.boolean().optional(),
  documentation_url: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .max(2000)
    .nullable()
    .optional(),
};

export const templateCreate = z
  .object({ slug, ...templateFields })
  .strict()
  .superRefine(requireTransportFields);
export type TemplateCreate = z.infer<typeof templateCreate>;

/** Every field but the slug may change; transport rules are checked against the merged result. */
export const templateUpdate = z
  .object({ ...templateFields, name: templateFields.name.optional(), transport: mcpTransport.optional() })
  .strict();
export type TemplateUpdate = z.infer<typeof templateUpdate>;

// ---- Team installations ----

/**
 * A team installation as the API shows it. Environment and header values are write-only: they often
 * hold credentials, are stored encrypted, and reach only satellites (through configuration); the view
 * lists their names so a frontend can show what is set.
 */
export const installationView = z.object({
  id: uuid,
  team_id: z.string(),
  template_id: uuid,
  server_slug: slug,
  name: slug,
  args: z.array(z.string()),
  env_keys: z.array(z.string()),
  header_keys: z.array(z.string()),
  status: installationStatus,
  status_message: z.string().nullable(),
  status_updated_at: isoTimestamp,
  last_health_check_at: isoTimestamp.nullable(),
  last_credential_check_at: isoTimestamp.nullable(),
  settings: installationSettings,
  created_by: z.string().nullable(),
  ...recordTimestamps,
});
export type InstallationView = z.infer<typeof installationView>;

export const installationCreate = z
  .object({
    /** The template to install. */
    server_slug: slug,
    /** Unique within the team; the server part of tool paths. */
    name: slug,
    args: argList.default([]),
    env: envMap.default({}),
    headers: headerMap.default({}),
    settings: installationSettings.optional(),
  })
  .strict();
export type InstallationCreate = z.infer<typeof installationCreate>;

/** A given `env` or `headers` replaces the whole map (values are write-only, so a merge could not be checked). */
export const installationUpdate = z
  .object({ name: slug.optional(), args: argList.optional(), env: envMap.optional(), headers: headerMap.optional() })
  .strict();
export type InstallationUpdate = z.infer<typeof installationUpdate>;

/** The user level of the configuration merge: what one member adds to the team's installation. */
export const userConfigBody = z.object({ args: argList.default([]), env: envMap.default({}) }).strict();
export type UserConfigBody = z.infer<typeof userConfigBody>;

export const userConfigView = z.object({
  installation_id: uuid,
  user_id: z.string(),
  args: z.array(z.string()),
  env_keys: z.array(z.string()),
  updated_at: isoTimestamp,
});
export type UserConfigView = z.infer<typeof userConfigView>;

// ---- Monitoring: status, server logs, request logs ----

/** What a status, a log line or a request log belongs to: its installation, and that installation's team. */
const ofInstallation = { installation_id: uuid, team_id: z.string() };

export const installationStatusView = z.object({
  ...ofInstallation,
  status: installationStatus,
  status_message: z.string().nullable(),
  status_updated_at: isoTimestamp,
  last_health_check_at: isoTimestamp.nullable(),
  last_credential_check_at: isoTimestamp.nullable(),
  /** Only `online` makes the installation's tools available. */
  available: z.boolean(),
});
export type InstallationStatusView = z.infer<typeof installationStatusView>;

export const logLevel = z.enum(['debug', 'info', 'warn', 'error']);

export const serverLogView = z.object({
  /** Monotonic per database (bigint as text), newest lines have the highest ids within an installation. */
  id: z.string(),
  ...ofInstallation,
  log_level: logLevel,
  message: z.string(),
  timestamp: isoTimestamp,
});
export type ServerLogView = z.infer<typeof serverLogView>;

export const requestLogView = z.object({
  id: uuid,
  ...ofInstallation,
  tool_name: z.string(),
  request_params: z.record(z.string(), z.unknown()),
  /** Present only while the installation's request_logging_enabled is true and a response was kept. */
  tool_response: z.unknown().optional(),
  duration_ms: z.number(),
  success: z.boolean(),
  error_message: z.string().nullable(),
  timestamp: isoTimestamp,
});
export type RequestLogView = z.infer<typeof requestLogView>;

const page = {
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).default(0),
};

/**
 * Query of GET .../logs and of its stream twin. Newest first. `level` keeps lines of that level only.
 * One schema for REST, stream and the NATS request, so they cannot apply different filters.
 */
export const serverLogQuery = z.object({ ...page, level: logLevel.optional() }).strict();
export type ServerLogQuery = z.infer<typeof serverLogQuery>;

/** Query of GET .../requests and of its stream twin. Newest first. */
export const requestLogQuery = z
  .object({
    ...page,
    tool_name: z.string().min(1).max(200).optional(),
    success: z.enum(['true', 'false']).optional(),
  })
  .strict();
export type RequestLogQuery = z.infer<typeof requestLogQuery>;

/** Where a page of a log sits: how many entries match over every page, and the window it shows. */
const pagePosition = { total: z.number().int(), limit: z.number().int(), offset: z.number().int() };

export const serverLogPage = z.object({ items: z.array(serverLogView), ...pagePosition });
export type ServerLogPage = z.infer<typeof serverLogPage>;

export const requestLogPage = z.object({
  items: z.array(requestLogView),
  ...pagePosition,
  request_logging_enabled: z.boolean(),
});
export type RequestLogPage = z.infer<typeof requestLogPage>;

export const settingsPatch = z.object({ request_logging_enabled: z.boolean() }).strict();

export const installationRef = z.object({ team_id: teamIdField, installation_id: uuid }).strict();
