import { auditContextOf } from '@orbital/audit';
import type { Bus } from '@orbital/bus';
import { toolPolicySubjects as s } from '@orbital/contracts';
import type { ToolPolicies } from '../domain/createToolPolicies.ts';
import type { PinnedDefinitions } from '../domain/pinToolDefinitions.ts';

/** Tool rules of installations and teams, and pinned definitions; access is declared with each subject. */
export function serveToolPolicySubjects(bus: Bus, policies: ToolPolicies, pins: PinnedDefinitions): void {
  bus.serve(s.get, (r) => policies.get(r.team_id, r.installation_id));
  bus.serve(s.update, (r, c) =>
    policies.update(r.team_id, r.installation_id, r.changes, c.access.userId(), auditContextOf(c)),
  );
  bus.serve(s.listTeam, (r) => policies.listTeam(r.team_id));
  bus.serve(s.updateTeam, (r, c) => policies.updateTeam(r.team_id, r.changes, c.access.userId(), auditContextOf(c)));
  bus.serve(s.listDefinitions, (r) => pins.list(r.team_id, r.installation_id));
  bus.serve(s.approveDefinition, (r, c) =>
    pins.approve(r.team_id, r.installation_id, r.tool_name, r.definition_hash, c.access.userId(), auditContextOf(c)),
  );
}
