/**
 * A satellite is online while it is active and its heartbeats keep coming: it goes offline once two
 * heartbeats in a row are missing (plus half an interval for a late one), 75 s at the 30 s interval. A
 * satellite that stops is shown offline within that, never later than 90 s; one late heartbeat does not
 * make it flicker.
 */
export function isSatelliteOnline(
  satellite: { status: string; last_heartbeat_at: number | null },
  now: Date,
  heartbeatIntervalMs: number,
): boolean {
  if (satellite.status !== 'active' || satellite.last_heartbeat_at === null) return false;
  return now.getTime() - satellite.last_heartbeat_at <= offlineAfterMs(heartbeatIntervalMs);
}

export function offlineAfterMs(heartbeatIntervalMs: number): number {
  return 2.5 * heartbeatIntervalMs;
}
