import { z } from 'zod';
import { commandPriority, commandType } from '../satellite/commands.ts';
import { installationStatus } from '../satellite/installationStatus.ts';
import { settingsChangedEvent, settingsChangedSubject } from '../settings/settingsSubjects.ts';
import {
  commandEventsStream,
  installationEventsStream,
  type StreamDefinition,
  settingsEventsStream,
} from './eventStreams.ts';

const isoTime = z.iso.datetime({ offset: true });

/** An installation's status changed (from a satellite event, a health check or a user action). */
export const installationStatusChangedEvent = z.object({
  installation_id: z.string(),
  team_id: z.string(),
  status: installationStatus,
  previous_status: installationStatus.nullable(),
  status_message: z.string().nullable(),
  changed_at: isoTime,
});
export const installationStatusChangedSubject = 'evt.installation.status_changed';

/** A command was queued for a satellite; lets a poll be answered early and an SSE stream show it. */
export const commandCreatedEvent = z.object({
  command_id: z.string(),
  satellite_id: z.string(),
  team_id: z.string().nullable(),
  command_type: commandType,
  priority: commandPriority,
  created_at: isoTime,
});
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
    subject: installationStatusChangedSubject,
    stream: installationEventsStream,
    producer: 'installations',
    description: 'The status of a team installation changed.',
    payload: installationStatusChangedEvent,
  },
  {
    subject: commandCreatedSubject,
    stream: commandEventsStream,
    producer: 'satellite-registry',
    description: 'A command was queued for a satellite.',
    payload: commandCreatedEvent,
  },
];
