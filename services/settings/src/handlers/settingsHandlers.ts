import { auditContextOf } from '@orbital/audit';
import type { Bus } from '@orbital/bus';
import { settingsSubjects as s } from '@orbital/contracts';
import type { SettingsOperations } from '../domain/createSettingsOperations.ts';

/**
 * One thin handler per subject. Who may call each one (global admins for reads and writes, platform
 * services for plaintext values) is declared with the subject and enforced by bus.serve. Writes are
 * recorded in the audit log as the caller's, from where gateway-api saw the request come.
 */
export function serveSettingsHandlers(bus: Bus, ops: SettingsOperations): void {
  bus.serve(s.listGroups, () => ops.listGroups());
  bus.serve(s.getGroup, ops.getGroup);
  bus.serve(s.createGroup, (request, context) => ops.createGroup(request, auditContextOf(context)));
  bus.serve(s.updateGroup, (request, context) => ops.updateGroup(request, auditContextOf(context)));
  bus.serve(s.listSettings, () => ops.listSettings());
  bus.serve(s.listGroupSettings, ops.listGroupSettings);
  bus.serve(s.getSetting, ops.getSetting);
  bus.serve(s.createSetting, (request, context) => ops.createSetting(request, auditContextOf(context)));
  bus.serve(s.updateSetting, (request, context) => ops.updateSetting(request, auditContextOf(context)));
  bus.serve(s.deleteSetting, (request, context) => ops.deleteSetting(request, auditContextOf(context)));
  bus.serve(s.searchSettings, ops.searchSettings);
  bus.serve(s.bulkSettings, (request, context) => ops.bulkSettings(request, auditContextOf(context)));
  bus.serve(s.health, () => ops.health());
  bus.serve(s.getValues, ops.getValues);
}
