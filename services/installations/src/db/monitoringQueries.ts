import type { RequestLogQuery, ServerLogQuery } from '@orbital/contracts';
import { type CommonQueryMethods, sql } from '@orbital/db';
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { countRow, type RequestLogRow, requestLogRow, serverLogRow } from './rows.ts';

const logColumns = sql.fragment`id, installation_id, team_id, log_level, message, "timestamp"`;
const requestColumns = sql.fragment`id, installation_id, team_id, tool_name, request_params, tool_response, duration_ms,
  success, error_message, "timestamp"`;

export type LogLineInput = { log_level: string; message: string; timestamp: string };

function logFilter(installationId: string, query: Pick<ServerLogQuery, 'level'>) {
  return sql.fragment`installation_id = ${installationId}
    ${query.level ? sql.fragment`AND log_level = ${query.level}` : sql.fragment``}`;
}

/**
 * A page and its total read from one snapshot. Two separate statements (they used to run in parallel
 * on two connections) can straddle a commit: a batch of lines stored in between gave `total: 5` with
 * an empty page. A read-only REPEATABLE READ transaction makes both see the same committed rows.
 */
function pageOnOneSnapshot<Row extends z.ZodType>(
  db: CommonQueryMethods,
  row: Row,
  of: { columns: FragmentSqlToken; table: string; where: FragmentSqlToken; orderBy: FragmentSqlToken },
  page: { limit: number; offset: number },
) {
  const table = sql.identifier([of.table]);
  return db.transaction(async (tx) => {
    await tx.query(sql.unsafe`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
    const items = await tx.any(sql.type(row)`
      SELECT ${of.columns} FROM ${table} WHERE ${of.where}
      ORDER BY ${of.orderBy} LIMIT ${page.limit} OFFSET ${page.offset}`);
    const total = await tx.oneFirst(sql.type(countRow)`SELECT count(*) AS count FROM ${table} WHERE ${of.where}`);
    return { items, total };
  });
}

export async function listLogLines(db: CommonQueryMethods, installationId: string, query: ServerLogQuery) {
  return pageOnOneSnapshot(
    db,
    serverLogRow,
    {
      columns: logColumns,
      table: 'server_logs',
      where: logFilter(installationId, query),
      orderBy: sql.fragment`id DESC`,
    },
    query,
  );
}

export type RequestLogInput = {
  /** The satellite event id in its canonical form (lower case, as PostgreSQL writes a uuid back). */
  id: string;
  /** The installation's id in its canonical form (as its row has it). */
  installationId: string;
  teamId: string;
  toolName: string;
  requestParams: Record<string, unknown>;
  toolResponse: unknown;
  durationMs: number;
  success: boolean;
  errorMessage: string | null;
  timestamp: string;
};

/** An ISO time already in the form Date writes (UTC, milliseconds): the form PostgreSQL's is read back in. */
const dateIsoForm = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * A time checked by the event's contract, in the form a stored row is shown with. Satellites write it
 * in that form already, and parsing it only to write it again cost about 0.7 µs a row; any other form
 * (an offset, more or fewer decimals) is converted.
 */
function utcIso(time: string): string {
  return dateIsoForm.test(time) ? time : new Date(time).toISOString();
}

/** What an insert of request logs answers: the ids of the new rows when not all were new, else null. */
const insertedIds = z.object({ ids: z.array(z.string()).nullable() });

/**
 * Inserts many request logs in one statement, each once (its id is the satellite event id), and returns
 * the stored rows of all of them, those a redelivery found already there included. A new row is
 * returned as it was given rather than read back: reading a thousand rows and their JSON back cost the
 * consumer more than the insert. Only the ids PostgreSQL did not insert (a redelivery) are read.
 */
export async function insertRequestLogs(
  db: CommonQueryMethods,
  given: RequestLogInput[],
): Promise<readonly RequestLogRow[]> {
  if (given.length === 0) return [];
  // One batch may repeat an event id: the first is the one stored, and the only one announced.
  const seen = new Set<string>();
  const logs = given.filter((r) => {
    if (seen.has(r.id)) return false;
    seen.add(r.id);
    return true;
  });
  const rows = logs.map((r) => [
    r.id,
    r.installationId,
    r.teamId,
    r.toolName,
    JSON.stringify(r.requestParams),
    r.toolResponse === undefined ? null : JSON.stringify(r.toolResponse),
    r.durationMs,
    r.success,
    r.errorMessage,
    r.timestamp,
  ]);
  // One row comes back, not one per insert, naming the new rows only when some were not new (a
  // redelivery): a thousand returned ids each went through the pool's row check, which cost the
  // consumer as much CPU as the rest of the insert.
  const result = await db.one(sql.type(insertedIds)`
    WITH inserted AS (
      INSERT INTO request_logs (id, installation_id, team_id, tool_name, request_params, tool_response, duration_ms,
        success, error_message, "timestamp")
      SELECT id, installation_id, team_id, tool_name, request_params::jsonb, tool_response::jsonb, duration_ms, success,
        error_message, "timestamp"
      FROM ${sql.unnest(rows, ['uuid', 'uuid', 'text', 'text', 'text', 'text', 'float8', 'bool', 'text', 'timestamptz'])}
        AS t(id, installation_id, team_id, tool_name, request_params, tool_response, duration_ms, success, error_message,
          "timestamp")
      ORDER BY id
      ON CONFLICT (id) DO NOTHING
      RETURNING id)
    SELECT CASE WHEN count(*) < ${logs.length} THEN coalesce(array_agg(id), '{}') END AS ids FROM inserted`);
  // Ids are given in their canonical form, as PostgreSQL writes a uuid back.
  const inserted = result.ids ? new Set(result.ids) : null;
  const fresh = inserted ? logs.filter((r) => inserted.has(r.id)) : logs;
  const stored: RequestLogRow[] = fresh.map((r) => ({
    id: r.id,
    installation_id: r.installationId,
    team_id: r.teamId,
    tool_name: r.toolName,
    request_params: r.requestParams,
    tool_response: r.toolResponse ?? null,
    duration_ms: r.durationMs,
    success: r.success,
    error_message: r.errorMessage,
    timestamp: utcIso(r.timestamp),
  }));
  if (!inserted) return stored;
  const already = logs.filter((r) => !inserted.has(r.id)).map((r) => r.id);
  const found = await db.any(sql.type(requestLogRow)`
    SELECT ${requestColumns} FROM request_logs WHERE id = ANY(${sql.array(already, 'uuid')})`);
  return [...stored, ...found];
}

/** The log lines of many events in one statement, each line once; returns every event's stored lines. */
export async function insertLogLinesOfEvents(
  db: CommonQueryMethods,
  events: Array<{ eventId: string; installationId: string; teamId: string; lines: LogLineInput[] }>,
) {
  const rows = events.flatMap((e) =>
    e.lines.map((line, index) => [
      e.installationId,
      e.teamId,
      line.log_level,
      line.message,
      line.timestamp,
      e.eventId,
      index,
    ]),
  );
  if (rows.length === 0) return [];
  await db.query(sql.unsafe`
    INSERT INTO server_logs (installation_id, team_id, log_level, message, "timestamp", event_id, line_no)
    SELECT * FROM ${sql.unnest(rows, ['uuid', 'text', 'text', 'text', 'timestamptz', 'uuid', 'int4'])}
    ON CONFLICT (event_id, line_no) DO NOTHING`);
  return db.any(sql.type(serverLogRow.extend({ event_id: z.string() }))`
    SELECT ${logColumns}, event_id FROM server_logs
    WHERE event_id = ANY(${sql.array(
      events.map((e) => e.eventId),
      'uuid',
    )})
    ORDER BY event_id, line_no`);
}

function requestFilter(installationId: string, query: Pick<RequestLogQuery, 'tool_name' | 'success'>) {
  return sql.fragment`installation_id = ${installationId}
    ${query.tool_name ? sql.fragment`AND tool_name = ${query.tool_name}` : sql.fragment``}
    ${query.success ? sql.fragment`AND success = ${query.success === 'true'}` : sql.fragment``}`;
}

export async function listRequestLogs(db: CommonQueryMethods, installationId: string, query: RequestLogQuery) {
  return pageOnOneSnapshot(
    db,
    requestLogRow,
    {
      columns: requestColumns,
      table: 'request_logs',
      where: requestFilter(installationId, query),
      orderBy: sql.fragment`seq DESC`,
    },
    query,
  );
}

export async function findRequestLog(db: CommonQueryMethods, installationId: string, requestId: string) {
  return db.maybeOne(sql.type(requestLogRow)`
    SELECT ${requestColumns} FROM request_logs WHERE id = ${requestId} AND installation_id = ${installationId}`);
}

export type DiscoveredTool = {
  tool_name: string;
  description: string;
  input_schema: Record<string, unknown>;
  token_count: number;
  annotations?: Record<string, unknown> | undefined;
};

/** Replaces an installation's tool metadata with what the last discovery found. */
export async function replaceToolMetadata(
  db: CommonQueryMethods,
  e: { installationId: string; serverSlug: string; discoveredAt: string; tools: DiscoveredTool[] },
): Promise<void> {
  const names = e.tools.map((t) => t.tool_name);
  await db.query(sql.unsafe`
    DELETE FROM tool_metadata WHERE installation_id = ${e.installationId}
      AND NOT (tool_name = ANY(${sql.array(names, 'text')}))`);
  for (const tool of e.tools) {
    await db.query(sql.unsafe`
      INSERT INTO tool_metadata (installation_id, server_slug, tool_name, description, input_schema, token_count,
        discovered_at, annotations)
      VALUES (${e.installationId}, ${e.serverSlug}, ${tool.tool_name}, ${tool.description},
        ${sql.jsonb(tool.input_schema as never)}, ${tool.token_count}, ${e.discoveredAt},
        ${tool.annotations ? sql.jsonb(tool.annotations as never) : null})
      ON CONFLICT (installation_id, tool_name) DO UPDATE SET server_slug = EXCLUDED.server_slug,
        description = EXCLUDED.description, input_schema = EXCLUDED.input_schema, token_count = EXCLUDED.token_count,
        discovered_at = EXCLUDED.discovered_at, annotations = EXCLUDED.annotations
      WHERE tool_metadata.discovered_at <= EXCLUDED.discovered_at`);
  }
}

export async function listToolMetadata(db: CommonQueryMethods, installationId: string) {
  return db.any(sql.unsafe`
    SELECT tool_name, server_slug, description, input_schema, token_count FROM tool_metadata
    WHERE installation_id = ${installationId} ORDER BY tool_name`);
}

/**
 * Keeps the newest `keep` lines of every installation in one set-based statement: for each
 * installation the index (installation_id, id DESC) finds the first line beyond the newest `keep`,
 * and everything at or below it goes. Cost follows the lines removed, not the table's size.
 */
export async function deleteOldLogLines(db: CommonQueryMethods, keep: number): Promise<number> {
  const result = await db.query(sql.unsafe`
    WITH cut AS (
      SELECT i.id AS installation_id, c.id AS cut_id
      FROM mcp_installations i
      CROSS JOIN LATERAL (
        SELECT l.id FROM server_logs l WHERE l.installation_id = i.id ORDER BY l.id DESC OFFSET ${keep} LIMIT 1
      ) c
    )
    DELETE FROM server_logs l USING cut WHERE l.installation_id = cut.installation_id AND l.id <= cut.cut_id`);
  return result.rowCount;
}
