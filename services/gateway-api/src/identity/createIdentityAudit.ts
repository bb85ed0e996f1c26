import { type AuditRecord, auditContextOf, recordAudit } from '@orbital/audit';
import type { AuditAction, AuditDetails, AuditTarget, CallerIdentity } from '@orbital/contracts';
import type { CommonQueryMethods, LivePool } from '@orbital/db';
import type { FastifyRequest } from 'fastify';
import { originOf } from '../http/requestOrigin.ts';

export type IdentityAuditEntry = {
  action: AuditAction;
  target: AuditTarget;
  team_id?: string | null;
  outcome?: AuditRecord['outcome'];
  reason?: string | null;
  details?: AuditDetails;
};

/**
 * Records identity's entries in the audit log: in the transaction of the action when one is given (it
 * commits and rolls back with it), on its own otherwise. Who acted and from where come from the request.
 */
export function createIdentityAudit(pool: LivePool) {
  return async (
    request: FastifyRequest,
    identity: CallerIdentity,
    entry: IdentityAuditEntry,
    tx?: CommonQueryMethods,
  ): Promise<void> => {
    await recordAudit(tx ?? pool.get(), {
      ...auditContextOf({ identity, origin: originOf(request), requestId: String(request.id) }),
      ...entry,
    });
  };
}
export type IdentityAudit = ReturnType<typeof createIdentityAudit>;
