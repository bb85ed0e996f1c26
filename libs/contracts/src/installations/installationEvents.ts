import { z } from 'zod';
import { defineEvent } from '../events/defineEvent.ts';
import { installationEventsStream } from '../events/eventStreams.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { installationStatus } from '../satellite/installationStatus.ts';
import { installationStatusView, requestLogView, serverLogView } from './installationSchemas.ts';

/**
 * Where every installation event goes: installations stores it in the installation events stream, and
 * gateway-api reads it there for the live streams it serves.
 */
export const installationsToGateway = {
  stream: installationEventsStream,
  producer: 'installations',
  consumers: ['gateway-api'],
} as const;

export const statusChangeReasons = [
  'created',
  'configuration',
  'process',
  'credential_validation',
  'recovery',
  'tools',
] as const;
export type StatusChangeReason = (typeof statusChangeReasons)[number];

/**
 * Every status change, stamped: the status exactly as GET .../status shows it after the change, with
 * what it was before and why it changed. `changed_at` equals `status_updated_at` (the events
 * pipeline's field name).
 */
export const installationStatusChangedPayload = installationStatusView.extend({
  previous_status: installationStatus.nullable(),
  changed_at: isoTimestamp,
  reason: z.enum(statusChangeReasons),
});
export type InstallationStatusChanged = z.infer<typeof installationStatusChangedPayload>;

/** Lines committed to the server log, as GET .../logs shows them (one message per satellite batch). */
export const installationLogAppendedPayload = z.object({
  installation_id: z.string(),
  team_id: z.string(),
  lines: z.array(serverLogView),
});
export type InstallationLogAppended = z.infer<typeof installationLogAppendedPayload>;

/**
 * Request logs of one installation committed together, each as GET .../requests/:id shows it
 * (tool_response only when it was kept), oldest first. One message per stored batch, not per call: a
 * busy installation's calls would otherwise cost the event store a message each.
 */
export const installationRequestLoggedPayload = z.object({
  installation_id: z.string(),
  team_id: z.string(),
  requests: z.array(requestLogView).min(1),
});
export type InstallationRequestLogged = z.infer<typeof installationRequestLoggedPayload>;

/**
 * Status changes by team and installation: a team's status stream reads only its team's subjects, an
 * installation's only its own, both as server-side filters.
 */
export const installationStatusChangedEvent = defineEvent({
  subject: 'evt.installation.status_changed.{team_id}.{installation_id}',
  ...installationsToGateway,
  description: 'The status of a team installation changed (every change, stamped, with its reason).',
  payload: installationStatusChangedPayload,
  tokensOf: (p) => ({ team_id: p.team_id, installation_id: p.installation_id }),
});

/**
 * Log lines and request logs are frequent, so their subjects end with the installation id: one
 * installation's stream is then a server-side filter, not a read of every team's traffic.
 */
export const installationLogAppendedEvent = defineEvent({
  subject: 'evt.installation.log_appended.{installation_id}',
  ...installationsToGateway,
  description: 'Server log lines committed for an installation (feeds the logs stream).',
  payload: installationLogAppendedPayload,
  tokensOf: (p) => ({ installation_id: p.installation_id }),
});

export const installationRequestLoggedEvent = defineEvent({
  subject: 'evt.installation.request_logged.{installation_id}',
  ...installationsToGateway,
  description:
    'Tool executions committed to the request log, those of one installation stored together in one message (feeds the requests stream).',
  payload: installationRequestLoggedPayload,
  tokensOf: (p) => ({ installation_id: p.installation_id }),
});
