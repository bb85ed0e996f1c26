import type { Bus, HandlerContext } from '@orbital/bus';
import { type CallerIdentity, settingsSubjects } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { SettingsOperations } from '../domain/createSettingsOperations.ts';

/**
 * The service enforces its own rule (DESIGN.md: it does not trust the caller to have filtered):
 * settings belong to global admins; platform services may read them, and only platform services get
 * plaintext values.
 */
function requireAdminOrService(identity: CallerIdentity): void {
  if (identity.kind === 'service') return;
  if (identity.kind === 'user' && identity.globalRole === 'global_admin') return;
  throw new AppError(
    identity.kind === 'anonymous' ? 'unauthenticated' : 'forbidden',
    'Settings are managed by global administrators',
  );
}

function requireAdmin(identity: CallerIdentity): void {
  if (identity.kind === 'user' && identity.globalRole === 'global_admin') return;
  throw new AppError(
    identity.kind === 'anonymous' ? 'unauthenticated' : 'forbidden',
    'Settings are managed by global administrators',
  );
}

function requireService(identity: CallerIdentity): void {
  if (identity.kind !== 'service')
    throw new AppError('forbidden', 'Plaintext setting values are for platform services only');
}

export function serveSettingsHandlers(bus: Bus, ops: SettingsOperations): void {
  const s = settingsSubjects;
  const guarded =
    <R, T>(check: (identity: CallerIdentity) => void, run: (request: R) => T) =>
    (request: R, context: HandlerContext) => {
      check(context.identity);
      return run(request);
    };
  bus.serve(
    s.listGroups,
    guarded(requireAdminOrService, () => ops.listGroups()),
  );
  bus.serve(s.getGroup, guarded(requireAdminOrService, ops.getGroup));
  bus.serve(s.createGroup, guarded(requireAdmin, ops.createGroup));
  bus.serve(s.updateGroup, guarded(requireAdmin, ops.updateGroup));
  bus.serve(
    s.listSettings,
    guarded(requireAdminOrService, () => ops.listSettings()),
  );
  bus.serve(s.listGroupSettings, guarded(requireAdminOrService, ops.listGroupSettings));
  bus.serve(s.getSetting, guarded(requireAdminOrService, ops.getSetting));
  bus.serve(s.createSetting, guarded(requireAdmin, ops.createSetting));
  bus.serve(s.updateSetting, guarded(requireAdmin, ops.updateSetting));
  bus.serve(s.deleteSetting, guarded(requireAdmin, ops.deleteSetting));
  bus.serve(s.searchSettings, guarded(requireAdminOrService, ops.searchSettings));
  bus.serve(s.bulkSettings, guarded(requireAdmin, ops.bulkSettings));
  bus.serve(
    s.health,
    guarded(requireAdminOrService, () => ops.health()),
  );
  bus.serve(s.getValues, guarded(requireService, ops.getValues));
}
