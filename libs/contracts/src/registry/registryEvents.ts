import { z } from 'zod';
import { defineEvent } from '../events/defineEvent.ts';
import { commandEventsStream, heartbeatEventsStream } from '../events/eventStreams.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { commandPriority, commandType } from '../satellite/commands.ts';
import { heartbeatPoint, satelliteProcessView } from './registrySchemas.ts';

/**
 * A heartbeat the registry has stored: the point exactly as GET /api/satellites/:id/metrics lists it,
 * and the processes it reported as that route's `processes` now show them (stamped with the heartbeat's
 * time). Published after the write commits, with `Nats-Msg-Id` `heartbeat:<heartbeat_id>`.
 */
export const satelliteHeartbeatRecordedPayload = z.object({
  heartbeat_id: z.number().int().positive(),
  satellite_id: z.uuid(),
  /** The team of a team satellite; null for a global satellite. */
  team_id: z.string().nullable(),
  heartbeat: heartbeatPoint,
  processes: z.array(satelliteProcessView),
});
export type SatelliteHeartbeatRecorded = z.infer<typeof satelliteHeartbeatRecordedPayload>;

/**
 * One subject per satellite: a metrics stream is then a server-side filter on one satellite, not a read
 * of every satellite's heartbeats (thousands of satellites, one heartbeat each every 30 seconds).
 */
export const satelliteHeartbeatRecordedEvent = defineEvent({
  subject: 'evt.heartbeat.recorded.{satellite_id}',
  stream: heartbeatEventsStream,
  producer: 'satellite-registry',
  consumers: ['gateway-api'],
  description: 'A heartbeat was stored: its metrics point and process metrics (feeds the metrics stream).',
  payload: satelliteHeartbeatRecordedPayload,
  tokensOf: (p) => ({ satellite_id: p.satellite_id }),
});

/** A command queued for one satellite, as its queue entry was committed. */
export const commandCreatedPayload = z.object({
  command_id: z.uuid(),
  satellite_id: z.uuid(),
  team_id: z.string(),
  command_type: commandType,
  priority: commandPriority,
  correlation_id: z.string().nullable(),
  created_at: isoTimestamp,
  expires_at: isoTimestamp.nullable(),
});
export type CommandCreated = z.infer<typeof commandCreatedPayload>;

/**
 * By satellite, so whatever waits for one satellite's commands (an early answer to its poll, a view of
 * its queue) reads only that satellite's subject. Published after the queue entry commits; a publish
 * that fails is logged, the command stays queued and is delivered by the next poll all the same.
 */
export const commandCreatedEvent = defineEvent({
  subject: 'evt.command.created.{satellite_id}',
  stream: commandEventsStream,
  producer: 'satellite-registry',
  // gateway-api wakes the command polls it holds (a long poll answered at once).
  consumers: ['gateway-api'],
  description: 'A command was queued for a satellite (one message per satellite it was queued for).',
  payload: commandCreatedPayload,
  tokensOf: (p) => ({ satellite_id: p.satellite_id }),
});
