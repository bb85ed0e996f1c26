import { z } from 'zod';
import { clientActivityRecorded } from '../installations/clientActivity.ts';
import {
  installationLogAppended,
  installationRequestLogged,
  installationStatusChanged,
  installationStatusChangedSubjectName,
} from '../installations/installationEvents.ts';
import { satelliteHeartbeatRecorded } from '../registry/heartbeatEvents.ts';
import { commandPriority, commandType } from '../satellite/commands.ts';
import { settingsChangedEvent, settingsChangedSubject } from '../settings/settingsSubjects.ts';
import {
  commandEventsStream,
  heartbeatEventsStream,
  installationEventsStream,
  type StreamDefinition,
  settingsEventsStream,
} from './eventStreams.ts';

const isoTime = z.iso.datetime({ offset: true });

/** A command was queued for a satellite; lets a poll be answered early and an SSE stream show it. */
export const commandCreatedEvent = z.object({
  command_id: z.string(),
  satellite_id: z.string(),
  team_id: z.string().nullable(),
  command_type: commandType,
  priority: commandPriority,
  created_at: isoTime,
});
export type CommandCreatedEvent = z.infer<typeof commandCreatedEvent>;
export const commandCreatedSubject = 'evt.command.created';

export type DomainEventDefinition = {
  subject: string;
  stream: StreamDefinition;
  /** The service that publishes it. */
  producer: string;
  description: string;
  payload: z.ZodType;
};

/**
 * Domain events: one subject each, with its stream and payload. A producer publishes with a stable
 * Nats-Msg-Id (the row's id and revision) so a retried publish is stored once.
 */
export const domainEvents: DomainEventDefinition[] = [
  {
    subject: settingsChangedSubject,
    stream: settingsEventsStream,
    producer: 'settings',
    description: 'Settings were created, updated or deleted; carries the keys, never the values.',
    payload: settingsChangedEvent,
  },
  {
    subject: installationStatusChangedSubjectName,
    stream: installationEventsStream,
    producer: 'installations',
    description: 'The status of a team installation changed (every change, stamped, with its reason).',
    payload: installationStatusChanged,
  },
  {
    subject: 'evt.installation.log_appended.<installation_id>',
    stream: installationEventsStream,
    producer: 'installations',
    description: 'Server log lines committed for an installation (feeds the logs stream).',
    payload: installationLogAppended,
  },
  {
    subject: 'evt.installation.request_logged.<installation_id>',
    stream: installationEventsStream,
    producer: 'installations',
    description: 'A tool execution committed to the request log (feeds the requests stream).',
    payload: installationRequestLogged,
  },
  {
    subject: 'evt.installation.client_activity.<team_id or _global>',
    stream: installationEventsStream,
    producer: 'installations',
    description: 'An MCP client session connected or disconnected (feeds the client activity stream).',
    payload: clientActivityRecorded,
  },
  {
    subject: commandCreatedSubject,
    stream: commandEventsStream,
    producer: 'satellite-registry',
    description: 'A command was queued for a satellite.',
    payload: commandCreatedEvent,
  },
  {
    subject: 'evt.heartbeat.recorded.<satellite_id>',
    stream: heartbeatEventsStream,
    producer: 'satellite-registry',
    description: 'A heartbeat was stored: its metrics point and process metrics (feeds the metrics stream).',
    payload: satelliteHeartbeatRecorded,
  },
];
