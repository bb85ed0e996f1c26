import type { AuditEntry } from '@orbital/contracts';

/** The columns of an export, in order; `details` is the entry's details as JSON. */
export const auditCsvColumns = [
  'id',
  'occurred_at',
  'source',
  'action',
  'outcome',
  'reason',
  'actor_kind',
  'actor_id',
  'actor_email',
  'actor_name',
  'target_kind',
  'target_id',
  'team_id',
  'source_ip',
  'request_id',
  'details',
] as const;

/** Characters a spreadsheet reads as the start of a formula (=, +, -, @) or a control it acts on. */
const formulaStart = /^[=+\-@\t\r]/;

/**
 * One cell: quoted, quotes doubled, and text a spreadsheet would run as a formula made inert with a
 * leading apostrophe (the guard OWASP describes for CSV injection). An actor's name or a team's name
 * comes from users; opened in a spreadsheet, `=HYPERLINK(...)` must stay text.
 */
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const safe = formulaStart.test(value) ? `'${value}` : value;
  return `"${safe.replaceAll('"', '""')}"`;
}

export function auditCsvHeader(): string {
  return `${auditCsvColumns.join(',')}\r\n`;
}

export function auditCsvRow(entry: AuditEntry): string {
  const cells: Record<(typeof auditCsvColumns)[number], string | null> = {
    id: entry.id,
    occurred_at: entry.occurred_at,
    source: entry.source,
    action: entry.action,
    outcome: entry.outcome,
    reason: entry.reason,
    actor_kind: entry.actor.kind,
    actor_id: entry.actor.id,
    actor_email: entry.actor.email,
    actor_name: entry.actor.name,
    target_kind: entry.target.kind,
    target_id: entry.target.id,
    team_id: entry.team_id,
    source_ip: entry.source_ip,
    request_id: entry.request_id,
    details: JSON.stringify(entry.details),
  };
  return `${auditCsvColumns.map((column) => csvCell(cells[column])).join(',')}\r\n`;
}
