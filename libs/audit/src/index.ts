export { type AuditContext, auditContextOf, processActor } from './auditContextOf.ts';
export { type AuditRelay, createAuditRelay } from './createAuditRelay.ts';
export { type AuditRecord, recordAudit } from './recordAudit.ts';
