import type { CommandView, RegistrationTokenView, SatelliteCommand, SatelliteView } from '@orbital/contracts';
import { timestampToIso } from '@orbital/db';
import type { CommandRow, SatelliteRow, TokenRow } from '../db/registryRows.ts';
import { isSatelliteOnline } from './isSatelliteOnline.ts';

const isoOrNull = (ms: number | null) => (ms === null ? null : timestampToIso(ms));

export function toTokenView(row: TokenRow, now: Date): RegistrationTokenView {
  const state = row.revoked_at
    ? 'revoked'
    : row.used_at
      ? 'used'
      : row.expires_at <= now.getTime()
        ? 'expired'
        : 'active';
  return {
    id: row.id,
    scope: row.scope,
    team_id: row.team_id,
    description: row.description,
    created_by: row.created_by,
    created_at: timestampToIso(row.created_at),
    expires_at: timestampToIso(row.expires_at),
    used_at: isoOrNull(row.used_at),
    used_by_satellite_id: row.used_by_satellite_id,
    revoked_at: isoOrNull(row.revoked_at),
    state,
  };
}

export function toSatelliteView(row: SatelliteRow, now: Date, heartbeatIntervalMs: number): SatelliteView {
  return {
    id: row.id,
    name: row.name,
    satellite_type: row.satellite_type,
    team_id: row.team_id,
    status: row.status,
    capabilities: row.capabilities,
    system_info: row.system_info,
    satellite_url: row.satellite_url,
    ip_allowlist: row.ip_allowlist,
    created_by: row.created_by,
    registered_at: timestampToIso(row.registered_at),
    last_heartbeat_at: isoOrNull(row.last_heartbeat_at),
    online: isSatelliteOnline(row, now, heartbeatIntervalMs),
  };
}

export function toSatelliteCommand(
  row: Pick<
    CommandRow,
    'id' | 'command_type' | 'priority' | 'payload' | 'correlation_id' | 'created_at' | 'expires_at'
  >,
): SatelliteCommand {
  return {
    id: row.id,
    command_type: row.command_type,
    priority: row.priority,
    payload: row.payload,
    correlation_id: row.correlation_id,
    created_at: timestampToIso(row.created_at),
    expires_at: isoOrNull(row.expires_at),
  } as SatelliteCommand;
}

export function toCommandView(row: CommandRow): CommandView {
  return {
    ...row,
    created_at: timestampToIso(row.created_at),
    updated_at: timestampToIso(row.updated_at),
    expires_at: isoOrNull(row.expires_at),
  };
}
