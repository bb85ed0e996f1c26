import { type AuditContext, auditContextOf } from '@orbital/audit';
import type { Bus } from '@orbital/bus';
import type { DbSetupReply, DbStatus } from '@orbital/contracts';
import { dbSetupSubject, dbStatusSubject } from '@orbital/contracts';

export function serveDbHandlers(
  bus: Bus,
  deps: { readStatus(): Promise<DbStatus>; setup(who: AuditContext): Promise<DbSetupReply> },
) {
  bus.serve(dbStatusSubject, () => deps.readStatus());
  bus.serve(dbSetupSubject, (_request, context) => deps.setup(auditContextOf(context)));
}
