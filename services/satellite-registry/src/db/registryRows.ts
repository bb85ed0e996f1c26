import {
  commandView,
  heartbeatPoint,
  registrationTokenView,
  satelliteProcessView,
  satelliteView,
} from '@orbital/contracts';
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

/** A registration token as stored: the contract's view without the derived `state`, timestamps as slonik parses them. */
export const tokenRow = registrationTokenView.omit({ state: true }).extend({
  created_at: millis,
  expires_at: millis,
  used_at: millis.nullable(),
  revoked_at: millis.nullable(),
});
export type TokenRow = z.infer<typeof tokenRow>;

/** A queued command as stored: the contract's view, timestamps as slonik parses them. */
export const commandRow = commandView.extend({ created_at: millis, expires_at: millis.nullable(), updated_at: millis });
export type CommandRow = z.infer<typeof commandRow>;

/** A heartbeat as stored: the contract's point, with the timestamp as slonik parses it. */
export const heartbeatRow = heartbeatPoint.extend({ received_at: millis });

/** A process as stored: the contract's view, with the timestamp as slonik parses it. */
export const processRow = satelliteProcessView.extend({ updated_at: millis });
