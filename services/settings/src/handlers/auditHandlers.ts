import type { Bus } from '@orbital/bus';
import { auditSubjects as s } from '@orbital/contracts';
import type { AuditLog } from '../domain/createAuditLog.ts';

/** The audit log's subjects; who may call each is declared with it and enforced by bus.serve. */
export function serveAuditHandlers(bus: Bus, log: AuditLog): void {
  bus.serve(s.record, log.record);
  bus.serve(s.list, log.list);
  bus.serve(s.prune, log.prune);
}
