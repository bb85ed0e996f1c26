export {
  type AuditContext,
  anonymousActor,
  auditContextOf,
  processActor,
  userActor,
} from './auditContextOf.ts';
export { type AuditRelay, createAuditRelay } from './createAuditRelay.ts';
export { type AuditRecord, recordAudit } from './recordAudit.ts';
