import type { Bus } from '@orbital/bus';
import { settingsSubjects as s } from '@orbital/contracts';
import type { SettingsOperations } from '../domain/createSettingsOperations.ts';

/**
 * One thin handler per subject. Who may call each one (global admins for reads and writes, platform
 * services for plaintext values) is declared with the subject and enforced by bus.serve.
 */
export function serveSettingsHandlers(bus: Bus, ops: SettingsOperations): void {
  bus.serve(s.listGroups, () => ops.listGroups());
  bus.serve(s.getGroup, ops.getGroup);
  bus.serve(s.createGroup, ops.createGroup);
  bus.serve(s.updateGroup, ops.updateGroup);
  bus.serve(s.listSettings, () => ops.listSettings());
  bus.serve(s.listGroupSettings, ops.listGroupSettings);
  bus.serve(s.getSetting, ops.getSetting);
  bus.serve(s.createSetting, ops.createSetting);
  bus.serve(s.updateSetting, ops.updateSetting);
  bus.serve(s.deleteSetting, ops.deleteSetting);
  bus.serve(s.searchSettings, ops.searchSettings);
  bus.serve(s.bulkSettings, ops.bulkSettings);
  bus.serve(s.health, () => ops.health());
  bus.serve(s.getValues, ops.getValues);
}
