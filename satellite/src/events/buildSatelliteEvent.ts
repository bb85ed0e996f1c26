import { randomUUID } from 'node:crypto';
import { parseSatelliteEvent, type SatelliteEvent } from '@orbital/contracts';

export type BuiltEvent =
  | { ok: true; event: SatelliteEvent }
  | { ok: false; type: string; issues: { path: string; message: string }[] };

/** Wraps data in the envelope (client-side id, timestamp) and checks it against the catalogue. */
export function buildSatelliteEvent(type: string, data: unknown, now: Date = new Date()): BuiltEvent {
  const parsed = parseSatelliteEvent({ id: randomUUID(), type, timestamp: now.toISOString(), data });
  if (parsed.success) return { ok: true, event: parsed.event };
  return { ok: false, type, issues: parsed.issues };
}
