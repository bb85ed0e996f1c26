import type { Bus } from '@orbital/bus';
import { installationSubjects as s } from '@orbital/contracts';
import type { LivePool } from '@orbital/db';
import type { InstallationsOperations } from '../domain/createInstallationsOperations.ts';
import { listClientActivity } from '../domain/listClientActivity.ts';

/** One thin handler per subject: the operations check the caller's role themselves. */
export function serveInstallationSubjects(bus: Bus, ops: InstallationsOperations, pool: LivePool): void {
  bus.serve(s.listTemplates, (_r, c) => ops.listTemplates(c.identity));
  bus.serve(s.getTemplate, (r, c) => ops.getTemplate(c.identity, r.slug));
  bus.serve(s.createTemplate, (r, c) => ops.createTemplate(c.identity, r));
  bus.serve(s.updateTemplate, (r, c) => ops.updateTemplate(c.identity, r.slug, r.changes));
  bus.serve(s.deleteTemplate, (r, c) => ops.deleteTemplate(c.identity, r.slug));
  bus.serve(s.listInstallations, (r, c) => ops.listInstallations(c.identity, r.team_id));
  bus.serve(s.getInstallation, (r, c) => ops.getInstallation(c.identity, r.team_id, r.installation_id));
  bus.serve(s.createInstallation, (r, c) => ops.createInstallation(c.identity, r.team_id, r.installation));
  bus.serve(s.updateInstallation, (r, c) =>
    ops.updateInstallation(c.identity, r.team_id, r.installation_id, r.changes),
  );
  bus.serve(s.deleteInstallation, (r, c) => ops.deleteInstallation(c.identity, r.team_id, r.installation_id));
  bus.serve(s.putUserConfig, (r, c) => ops.putUserConfig(c.identity, r.team_id, r.installation_id, r.config));
  bus.serve(s.getStatus, (r, c) => ops.getStatus(c.identity, r.team_id, r.installation_id));
  bus.serve(s.listLogs, (r, c) => ops.listLogs(c.identity, r.team_id, r.installation_id, r.query));
  bus.serve(s.listRequests, (r, c) => ops.listRequests(c.identity, r.team_id, r.installation_id, r.query));
  bus.serve(s.getRequest, (r, c) => ops.getRequest(c.identity, r.team_id, r.installation_id, r.request_id));
  bus.serve(s.updateSettings, (r, c) => ops.updateSettings(c.identity, r.team_id, r.installation_id, r.settings));
  bus.serve(s.listClientActivity, (r, c) => listClientActivity(pool, c.identity, r.query));
}
