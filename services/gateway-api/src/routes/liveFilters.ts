import type {
  AuditEntry,
  AuditFilter,
  ClientSessionView,
  RequestLogQuery,
  RequestLogView,
  ServerLogQuery,
  ServerLogView,
} from '@orbital/contracts';

/**
 * What a live stream lets through: each query's filters applied to one item as it arrives, by the same
 * rules the owning service applies to the stored list (the REST twin of the stream), so a stream and a
 * page of the same query show the same things.
 */

/**
 * True when an entry passes a filter: the same rules as the log's own query, for what a live stream
 * receives (`actor` the id or the e-mail in any case, `action` a name or `<kind>.*`, `from` inclusive,
 * `to` exclusive).
 */
export function matchesAuditFilter(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.team_id !== undefined && entry.team_id !== filter.team_id) return false;
  if (filter.actor !== undefined) {
    const email = entry.actor.email?.toLowerCase();
    if (entry.actor.id !== filter.actor && email !== filter.actor.toLowerCase()) return false;
  }
  if (filter.action !== undefined) {
    if (filter.action.endsWith('.*')) {
      if (!entry.action.startsWith(filter.action.slice(0, -1))) return false;
    } else if (entry.action !== filter.action) return false;
  }
  if (filter.target_kind !== undefined && entry.target.kind !== filter.target_kind) return false;
  if (filter.target_id !== undefined && entry.target.id !== filter.target_id) return false;
  if (filter.outcome !== undefined && entry.outcome !== filter.outcome) return false;
  if (filter.source !== undefined && entry.source !== filter.source) return false;
  const at = Date.parse(entry.occurred_at);
  if (filter.from !== undefined && at < Date.parse(filter.from)) return false;
  if (filter.to !== undefined && at >= Date.parse(filter.to)) return false;
  return true;
}

/** True when a line passes the filters of the query (the stream applies this to live lines). */
export function matchesServerLogQuery(line: ServerLogView, query: Pick<ServerLogQuery, 'level'>): boolean {
  return query.level === undefined || line.log_level === query.level;
}

export function matchesRequestLogQuery(
  row: RequestLogView,
  query: Pick<RequestLogQuery, 'tool_name' | 'success'>,
): boolean {
  if (query.tool_name !== undefined && row.tool_name !== query.tool_name) return false;
  if (query.success !== undefined && String(row.success) !== query.success) return false;
  return true;
}

/** Is a session within a scope (the stream applies the REST twin's scope and filter to live events)? */
export function inClientActivityScope(session: ClientSessionView, teams: string[] | null): boolean {
  return teams === null || (session.team_id !== null && teams.includes(session.team_id));
}
