import { installationStatus, logLevel, mcpTransport, templateOAuth } from '@orbital/contracts';
import { isoTimestampColumn } from '@orbital/db';
import { z } from 'zod';

const stringMap = z.record(z.string(), z.string());

export const templateRow = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  transport: mcpTransport,
  command: z.string().nullable(),
  args: z.array(z.string()),
  env: stringMap,
  url: z.string().nullable(),
  headers: stringMap,
  oauth: templateOAuth.nullable(),
  untested: z.boolean(),
  documentation_url: z.string().nullable(),
  health_status: z.string().nullable(),
  last_health_check_at: isoTimestampColumn.nullable(),
  health_check_error: z.string().nullable(),
  created_at: isoTimestampColumn,
  updated_at: isoTimestampColumn,
});
export type TemplateRow = z.infer<typeof templateRow>;

export const installationRow = z.object({
  id: z.string(),
  team_id: z.string(),
  team_slug: z.string(),
  template_id: z.string(),
  server_slug: z.string(),
  name: z.string(),
  args: z.array(z.string()),
  secret_config: z.string(),
  env_keys: z.array(z.string()),
  header_keys: z.array(z.string()),
  status: installationStatus,
  status_message: z.string().nullable(),
  status_updated_at: isoTimestampColumn,
  last_health_check_at: isoTimestampColumn.nullable(),
  last_credential_check_at: isoTimestampColumn.nullable(),
  status_source_at: isoTimestampColumn.nullable(),
  settings: z.object({ request_logging_enabled: z.boolean().default(false) }).catch({ request_logging_enabled: false }),
  created_by: z.string().nullable(),
  created_at: isoTimestampColumn,
  updated_at: isoTimestampColumn,
});
export type InstallationRow = z.infer<typeof installationRow>;

export const userConfigRow = z.object({
  installation_id: z.string(),
  user_id: z.string(),
  args: z.array(z.string()),
  secret_config: z.string(),
  env_keys: z.array(z.string()),
  updated_at: isoTimestampColumn,
});
export type UserConfigRow = z.infer<typeof userConfigRow>;

export const serverLogRow = z.object({
  id: z.coerce.string(),
  installation_id: z.string(),
  team_id: z.string(),
  log_level: logLevel,
  message: z.string(),
  timestamp: isoTimestampColumn,
});

export const requestLogRow = z.object({
  id: z.string(),
  installation_id: z.string(),
  team_id: z.string(),
  tool_name: z.string(),
  request_params: z.record(z.string(), z.unknown()),
  tool_response: z.unknown(),
  duration_ms: z.number(),
  success: z.boolean(),
  error_message: z.string().nullable(),
  timestamp: isoTimestampColumn,
});
export type RequestLogRow = z.infer<typeof requestLogRow>;

export const countRow = z.object({ count: z.coerce.number() });
