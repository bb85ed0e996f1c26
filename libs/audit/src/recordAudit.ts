import { randomUUID } from 'node:crypto';
import {
  type AuditAction,
  type AuditActor,
  type AuditDetails,
  type AuditOutcome,
  type AuditTarget,
  auditEntryInput,
} from '@orbital/contracts';
import { type CommonQueryMethods, sql } from '@orbital/db';
import { AppError } from '@orbital/errors';

/** One action, as its owner records it: who, what, to what, for which team, and how it ended. */
export type AuditRecord = {
  action: AuditAction;
  actor: AuditActor;
  target: AuditTarget;
  /** The team the action belongs to (its team admins see the entry); omitted for platform actions. */
  team_id?: string | null;
  /** Success unless said otherwise; a failure gives its reason. */
  outcome?: AuditOutcome;
  reason?: string | null;
  source_ip?: string | null;
  request_id?: string | null;
  /** What else identifies the action: keys, names, ids. Never a secret value (the contract refuses one). */
  details?: AuditDetails;
  /** When it happened; now unless given. */
  occurred_at?: Date;
};

/**
 * Records an audit entry in the caller's transaction, in the owner's own `audit_outbox` table (its schema
 * is first on the pool's search_path): it commits with the action and rolls back with it, so an action
 * never lacks its entry and an undone one has none. The service's audit relay delivers it to the audit
 * log after commit. Given a pool instead of a transaction (a refused login, which changes nothing), the
 * entry is written on its own.
 *
 * The entry is checked against its contract here, so a breach (a detail that names a secret) fails the
 * action that tried to record it, at once, instead of the delivery later.
 */
export async function recordAudit(db: CommonQueryMethods, record: AuditRecord): Promise<void> {
  const checked = auditEntryInput.safeParse({
    id: randomUUID(),
    occurred_at: (record.occurred_at ?? new Date()).toISOString(),
    action: record.action,
    actor: record.actor,
    target: record.target,
    team_id: record.team_id ?? null,
    outcome: record.outcome ?? 'success',
    reason: record.reason ?? null,
    source_ip: record.source_ip ?? null,
    request_id: record.request_id ?? null,
    details: record.details ?? {},
  });
  if (!checked.success) {
    throw new AppError('internal', `An ${record.action} audit entry breaks its contract`, {
      cause: checked.error,
      details: checked.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  await db.query(sql.unsafe`INSERT INTO audit_outbox (entry) VALUES (${JSON.stringify(checked.data)}::jsonb)`);
}
