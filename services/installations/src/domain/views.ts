import type {
  InstallationStatusView,
  InstallationView,
  RequestLogView,
  TemplateView,
  UserConfigView,
} from '@orbital/contracts';
import type { InstallationRow, RequestLogRow, TemplateRow, UserConfigRow } from '../db/rows.ts';

export function templateView(row: TemplateRow): TemplateView {
  return row;
}

export function installationView(row: InstallationRow): InstallationView {
  return {
    id: row.id,
    team_id: row.team_id,
    template_id: row.template_id,
    server_slug: row.server_slug,
    name: row.name,
    args: row.args,
    env_keys: row.env_keys,
    header_keys: row.header_keys,
    status: row.status,
    status_message: row.status_message,
    status_updated_at: row.status_updated_at,
    last_health_check_at: row.last_health_check_at,
    last_credential_check_at: row.last_credential_check_at,
    settings: row.settings,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function statusView(row: InstallationRow): InstallationStatusView {
  return {
    installation_id: row.id,
    team_id: row.team_id,
    status: row.status,
    status_message: row.status_message,
    status_updated_at: row.status_updated_at,
    last_health_check_at: row.last_health_check_at,
    last_credential_check_at: row.last_credential_check_at,
    // Only an online installation's tools can be called.
    available: row.status === 'online',
  };
}

/**
 * A request log as the API shows it. `tool_response` appears only while the installation's request
 * logging is on (a response kept earlier is hidden once it is turned off) and only when one was kept.
 */
export function requestLogView(row: RequestLogRow, loggingEnabled: boolean): RequestLogView {
  const { tool_response, ...rest } = row;
  return loggingEnabled && tool_response !== null && tool_response !== undefined ? { ...rest, tool_response } : rest;
}

export function userConfigView(row: UserConfigRow): UserConfigView {
  return {
    installation_id: row.installation_id,
    user_id: row.user_id,
    args: row.args,
    env_keys: row.env_keys,
    updated_at: row.updated_at,
  };
}
