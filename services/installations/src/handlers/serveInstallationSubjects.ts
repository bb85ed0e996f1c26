import { auditContextOf } from '@orbital/audit';
import type { Bus } from '@orbital/bus';
import { installationSubjects as s } from '@orbital/contracts';
import type { LivePool } from '@orbital/db';
import { AppError } from '@orbital/errors';
import type { InstallationsOperations } from '../domain/createInstallationsOperations.ts';
import { listClientActivity } from '../domain/listClientActivity.ts';

/**
 * One thin handler per subject. Who may call each one is declared with the subject and enforced by
 * bus.serve before the handler runs. Changes are recorded in the audit log as the caller's.
 */
export function serveInstallationSubjects(bus: Bus, ops: InstallationsOperations, pool: LivePool): void {
  bus.serve(s.listTemplates, () => ops.listTemplates());
  bus.serve(s.getTemplate, (r) => ops.getTemplate(r.slug));
  bus.serve(s.createTemplate, (r, c) => ops.createTemplate(r, auditContextOf(c)));
  bus.serve(s.updateTemplate, (r, c) => ops.updateTemplate(r.slug, r.changes, auditContextOf(c)));
  bus.serve(s.deleteTemplate, (r, c) => ops.deleteTemplate(r.slug, auditContextOf(c)));
  bus.serve(s.listInstallations, (r) => ops.listInstallations(r.team_id));
  bus.serve(s.getInstallation, (r) => ops.getInstallation(r.team_id, r.installation_id));
  bus.serve(s.createInstallation, (r, c) =>
    ops.createInstallation(r.team_id, r.installation, c.access.userId(), auditContextOf(c)),
  );
  bus.serve(s.updateInstallation, (r, c) =>
    ops.updateInstallation(r.team_id, r.installation_id, r.changes, auditContextOf(c)),
  );
  bus.serve(s.deleteInstallation, (r, c) => ops.deleteInstallation(r.team_id, r.installation_id, auditContextOf(c)));
  bus.serve(s.putUserConfig, (r, c) =>
    ops.putUserConfig(r.team_id, r.installation_id, r.config, memberOf(c.access.userId()), auditContextOf(c)),
  );
  bus.serve(s.getStatus, (r) => ops.getStatus(r.team_id, r.installation_id));
  bus.serve(s.listLogs, (r) => ops.listLogs(r.team_id, r.installation_id, r.query));
  bus.serve(s.listRequests, (r) => ops.listRequests(r.team_id, r.installation_id, r.query));
  bus.serve(s.getRequest, (r) => ops.getRequest(r.team_id, r.installation_id, r.request_id));
  bus.serve(s.updateSettings, (r, c) =>
    ops.updateSettings(r.team_id, r.installation_id, r.settings, auditContextOf(c)),
  );
  bus.serve(s.listClientActivity, (r, c) => listClientActivity(pool, c.access.teams(), r.query));
}

/** A user level belongs to a person; the subject admits only members of the team, so this holds. */
function memberOf(userId: string | null): string {
  if (!userId) throw new AppError('forbidden', 'A user configuration belongs to a signed-in member');
  return userId;
}
