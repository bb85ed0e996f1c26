import {
  type AuditEntryInput,
  type AuditFilter,
  auditActor,
  auditOutcome,
  type ProcessName,
  processName,
} from '@orbital/contracts';
import { type CommonQueryMethods, sql } from '@orbital/db';
import { z } from 'zod';

/** A page's position: the time (epoch milliseconds) and id of the last entry it showed. */
export type AuditCursor = { t: number; id: string };

/**
 * An entry as stored: the actor and target flattened into columns, the source, actor kind and outcome read
 * with the entry's own definitions (every entry was checked against them before it was stored).
 */
const entryRow = z.object({
  id: z.string(),
  occurred_at: z.number(),
  source: processName,
  action: z.string(),
  actor_kind: auditActor.shape.kind,
  actor_id: z.string().nullable(),
  actor_email: z.string().nullable(),
  actor_name: z.string().nullable(),
  target_kind: z.string(),
  target_id: z.string().nullable(),
  team_id: z.string().nullable(),
  outcome: auditOutcome,
  reason: z.string().nullable(),
  source_ip: z.string().nullable(),
  request_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntryRow = z.infer<typeof entryRow>;

const columns = sql.fragment`id, occurred_at, source, action, actor_kind, actor_id, actor_email, actor_name,
  target_kind, target_id, team_id, outcome, reason, source_ip, request_id, details`;

/**
 * Stores entries, each once by id (a repeated delivery inserts nothing), and answers which of the given
 * ids are stored but not yet on the live stream: the new ones, and any a delivery before this one stored
 * without getting to publish. Times are kept to the millisecond, the precision a page's cursor carries,
 * so paging never skips or repeats an entry of the same millisecond.
 */
export async function insertEntries(
  db: CommonQueryMethods,
  source: ProcessName,
  entries: readonly AuditEntryInput[],
): Promise<{ inserted: number; unpublished: AuditEntryRow[] }> {
  const rows = JSON.stringify(entries);
  const inserted = await db.query(sql.unsafe`
    INSERT INTO audit_entries (id, occurred_at, source, action, actor_kind, actor_id, actor_email, actor_name,
      target_kind, target_id, team_id, outcome, reason, source_ip, request_id, details)
    SELECT e.id, date_trunc('milliseconds', e.occurred_at), ${source}, e.action, e.actor->>'kind', e.actor->>'id',
      e.actor->>'email', e.actor->>'name', e.target->>'kind', e.target->>'id', e.team_id, e.outcome, e.reason,
      e.source_ip, e.request_id, e.details
    FROM jsonb_to_recordset(${rows}::jsonb) AS e(id uuid, occurred_at timestamptz, action text,
      actor jsonb, target jsonb, team_id text, outcome text, reason text, source_ip text, request_id text,
      details jsonb)
    ON CONFLICT (id) DO NOTHING`);
  const unpublished = await db.any(sql.type(entryRow)`
    SELECT ${columns} FROM audit_entries
    WHERE id = ANY(${sql.array(
      entries.map((e) => e.id),
      'uuid',
    )}) AND NOT published
    ORDER BY occurred_at, id`);
  return { inserted: inserted.rowCount, unpublished: [...unpublished] };
}

export async function markPublished(db: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`UPDATE audit_entries SET published = true WHERE id = ANY(${sql.array([...ids], 'uuid')})`);
}

/** A filter as SQL; `teams` narrows to those teams' entries (null: every entry). */
function whereOf(filter: AuditFilter, cursor: AuditCursor | null) {
  const conditions = [sql.fragment`true`];
  if (filter.team_id !== undefined) conditions.push(sql.fragment`team_id = ${filter.team_id}`);
  if (filter.actor !== undefined) {
    conditions.push(sql.fragment`(actor_id = ${filter.actor} OR lower(actor_email) = lower(${filter.actor}))`);
  }
  if (filter.action !== undefined) {
    if (filter.action.endsWith('.*')) {
      // A kind: the name's first token. LIKE's own wildcards cannot occur in it (the contract allows
      // letters, _ and dots only), and _ is escaped.
      const prefix = `${filter.action.slice(0, -1).replaceAll('_', '\\_')}%`;
      conditions.push(sql.fragment`action LIKE ${prefix}`);
    } else conditions.push(sql.fragment`action = ${filter.action}`);
  }
  if (filter.target_kind !== undefined) conditions.push(sql.fragment`target_kind = ${filter.target_kind}`);
  if (filter.target_id !== undefined) conditions.push(sql.fragment`target_id = ${filter.target_id}`);
  if (filter.outcome !== undefined) conditions.push(sql.fragment`outcome = ${filter.outcome}`);
  if (filter.source !== undefined) conditions.push(sql.fragment`source = ${filter.source}`);
  if (filter.from !== undefined) conditions.push(sql.fragment`occurred_at >= ${filter.from}::timestamptz`);
  if (filter.to !== undefined) conditions.push(sql.fragment`occurred_at < ${filter.to}::timestamptz`);
  if (cursor) {
    conditions.push(
      sql.fragment`(occurred_at, id) < (${new Date(cursor.t).toISOString()}::timestamptz, ${cursor.id}::uuid)`,
    );
  }
  return sql.join(conditions, sql.fragment` AND `);
}

/** Up to `limit` entries after the cursor, newest first. */
export async function listEntries(
  db: CommonQueryMethods,
  filter: AuditFilter,
  cursor: AuditCursor | null,
  limit: number,
): Promise<readonly AuditEntryRow[]> {
  return db.any(sql.type(entryRow)`
    SELECT ${columns} FROM audit_entries WHERE ${whereOf(filter, cursor)}
    ORDER BY occurred_at DESC, id DESC LIMIT ${limit}`);
}

/**
 * Deletes entries older than the cutoff, a bounded number per statement so a first prune of a large log
 * never holds one long transaction; answers how many went.
 */
export async function deleteOlderThan(db: CommonQueryMethods, cutoff: Date, chunk = 5000): Promise<number> {
  let removed = 0;
  for (;;) {
    const result = await db.query(sql.unsafe`
      DELETE FROM audit_entries WHERE id IN (
        SELECT id FROM audit_entries WHERE occurred_at < ${cutoff.toISOString()}::timestamptz LIMIT ${chunk})`);
    removed += result.rowCount;
    if (result.rowCount < chunk) return removed;
  }
}
