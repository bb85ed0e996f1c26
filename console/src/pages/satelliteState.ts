import type { SatelliteView } from '../api/client.ts';

/** One word for a satellite's state: revoked, inactive (never sent a heartbeat), online or offline. */
export function satelliteState(s: SatelliteView): 'revoked' | 'inactive' | 'online' | 'offline' {
  if (s.status === 'revoked') return 'revoked';
  if (s.status === 'inactive') return 'inactive';
  return s.online ? 'online' : 'offline';
}
