import { z } from 'zod';
import { subjectToken } from '../subject.ts';
import { heartbeatPoint, satelliteProcessView } from './registrySchemas.ts';

/**
 * One subject per satellite: a metrics stream is then a server-side filter on one satellite, not a read
 * of every satellite's heartbeats (thousands of satellites, one heartbeat each every 30 seconds).
 */
export function satelliteHeartbeatSubject(satelliteId: string): string {
  return `evt.heartbeat.recorded.${subjectToken.parse(satelliteId)}`;
}

/**
 * A heartbeat the registry has stored: the point exactly as GET /api/satellites/:id/metrics lists it,
 * and the processes it reported as that route's `processes` now show them (stamped with the heartbeat's
 * time). Published after the write commits, with `Nats-Msg-Id` `heartbeat:<heartbeat_id>`.
 */
export const satelliteHeartbeatRecorded = z.object({
  heartbeat_id: z.number().int().positive(),
  satellite_id: z.uuid(),
  /** The team of a team satellite; null for a global satellite. */
  team_id: z.string().nullable(),
  heartbeat: heartbeatPoint,
  processes: z.array(satelliteProcessView),
});
export type SatelliteHeartbeatRecorded = z.infer<typeof satelliteHeartbeatRecorded>;
