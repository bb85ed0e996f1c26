import { heartbeatPoint, satelliteProcessView, satelliteView } from '@orbital/contracts';
import { z } from 'zod';

/** slonik parses timestamptz to epoch milliseconds. */
const millis = z.number();

/** A satellite as stored: the contract's view without the derived `online`, timestamps as slonik parses them. */
export const satelliteRow = satelliteView.omit({ online: true }).extend({
  registered_at: millis,
  last_heartbeat_at: millis.nullable(),
  last_command_at: millis.nullable(),
});
export type SatelliteRow = z.infer<typeof satelliteRow>;

export const apiKeyRow = satelliteRow
  .pick({ id: true, satellite_type: true, team_id: true, status: true, ip_allowlist: true })
  .extend({ api_key_hash: z.string(), api_key_digest: z.string().nullable() });

export const tokenRow = z.object({
  id: z.string(),
  scope: z.enum(['global', 'team']),
  team_id: z.string().nullable(),
  description: z.string().nullable(),
  created_by: z.string().nullable(),
  created_at: millis,
  expires_at: millis,
  used_at: millis.nullable(),
  used_by_satellite_id: z.string().nullable(),
  revoked_at: millis.nullable(),
});
export type TokenRow = z.infer<typeof tokenRow>;

export const commandRow = z.object({
  id: z.string(),
  satellite_id: z.string(),
  team_id: z.string(),
  command_type: z.enum(['spawn', 'kill', 'restart', 'configure', 'health_check']),
  priority: z.enum(['immediate', 'high', 'normal', 'low']),
  payload: z.record(z.string(), z.unknown()),
  correlation_id: z.string().nullable(),
  status: z.enum(['pending', 'leased', 'acknowledged', 'executing', 'completed', 'failed', 'expired']),
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  result: z.record(z.string(), z.unknown()).nullable(),
  error_message: z.string().nullable(),
  created_at: millis,
  expires_at: millis.nullable(),
  updated_at: millis,
});
export type CommandRow = z.infer<typeof commandRow>;

/** A heartbeat as stored: the contract's point, with the timestamp as slonik parses it. */
export const heartbeatRow = heartbeatPoint.extend({ received_at: millis });

/** A process as stored: the contract's view, with the timestamp as slonik parses it. */
export const processRow = satelliteProcessView.extend({ updated_at: millis });
