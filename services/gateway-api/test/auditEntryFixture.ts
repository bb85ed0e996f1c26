import { randomUUID } from 'node:crypto';
import type { AuditEntryInput } from '@orbital/contracts';

/**
 * An entry as an owner delivers it to the audit log: what happened, who did it and to what, given; by
 * default a success of no team, now, with nothing else known (no reason, address, request or details).
 */
export function auditEntryFixture(
  entry: Pick<AuditEntryInput, 'action' | 'actor' | 'target'> & Partial<AuditEntryInput>,
): AuditEntryInput {
  return {
    id: randomUUID(),
    occurred_at: new Date().toISOString(),
    team_id: null,
    outcome: 'success',
    reason: null,
    source_ip: null,
    request_id: null,
    details: {},
    ...entry,
  };
}
