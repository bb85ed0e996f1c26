import { z } from 'zod';
import { installationStatus } from '../satellite/installationStatus.ts';
import { subjectToken } from '../subject.ts';
import { requestLogView, serverLogView } from './installationSchemas.ts';

const isoTime = z.iso.datetime({ offset: true });

/** DESIGN.md's subject; one subject for every installation (status changes are rare). */
export const installationStatusChangedSubjectName = 'evt.installation.status_changed';

/**
 * Log lines and request logs are frequent, so their subjects end with the installation id: one
 * installation's stream is then a server-side filter, not a read of every team's traffic.
 */
export function installationLogSubject(installationId: string): string {
  return `evt.installation.log_appended.${subjectToken.parse(installationId)}`;
}
export function installationRequestSubject(installationId: string): string {
  return `evt.installation.request_logged.${subjectToken.parse(installationId)}`;
}

export const statusChangeReasons = [
  'created',
  'configuration',
  'process',
  'credential_validation',
  'recovery',
  'tools',
] as const;
export type StatusChangeReason = (typeof statusChangeReasons)[number];

/** Every status change, stamped; `changed_at` equals `status_updated_at` (the events pipeline's field name). */
export const installationStatusChanged = z.object({
  installation_id: z.string(),
  team_id: z.string(),
  status: installationStatus,
  previous_status: installationStatus.nullable(),
  status_message: z.string().nullable(),
  changed_at: isoTime,
  status_updated_at: isoTime,
  last_health_check_at: isoTime.nullable(),
  last_credential_check_at: isoTime.nullable(),
  reason: z.enum(statusChangeReasons),
});
export type InstallationStatusChanged = z.infer<typeof installationStatusChanged>;

/** Lines committed to the server log, as GET .../logs shows them (one message per satellite batch). */
export const installationLogAppended = z.object({
  installation_id: z.string(),
  team_id: z.string(),
  lines: z.array(serverLogView),
});
export type InstallationLogAppended = z.infer<typeof installationLogAppended>;

/** A request log committed, as GET .../requests/:id shows it (tool_response only when it was kept). */
export const installationRequestLogged = z.object({
  installation_id: z.string(),
  team_id: z.string(),
  request: requestLogView,
});
export type InstallationRequestLogged = z.infer<typeof installationRequestLogged>;
