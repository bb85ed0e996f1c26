import { type ClientActivityQuery, type ClientSessionView, clientSessionView } from '@orbital/contracts';
import { type CommonQueryMethods, isoTimestampColumn, sql } from '@orbital/db';

/** The contract's view as stored: timestamps as slonik parses them, `active` derived from them. */
const clientSessionRow = clientSessionView
  .omit({ active: true })
  .extend({
    connected_at: isoTimestampColumn.nullable(),
    disconnected_at: isoTimestampColumn.nullable(),
    updated_at: isoTimestampColumn,
  })
  .transform((row): ClientSessionView => ({ ...row, active: row.disconnected_at === null }));

const columns = sql.fragment`satellite_id, session_id, team_id, client_type, client_name, client_version, user_agent,
  transport, connected_at,
  disconnected_at, connection_duration_seconds, tool_execution_count, disconnect_reason, updated_at`;

export type SessionKey = { satelliteId: string; sessionId: string; teamId: string | null; at: string };

/**
 * A connection. Upserted, not inserted: events of one satellite arrive in order, but a disconnection
 * seen first (its connection outside the stream's window) must not be undone by a late connection.
 */
export async function recordClientConnected(
  db: CommonQueryMethods,
  key: SessionKey,
  c: {
    clientType: string;
    clientName: string | null;
    clientVersion: string | null;
    userAgent: string;
    transport: string;
  },
) {
  return db.one(sql.type(clientSessionRow)`
    INSERT INTO mcp_client_sessions (satellite_id, session_id, team_id, client_type, client_name, client_version,
      user_agent, transport, connected_at, updated_at)
    VALUES (${key.satelliteId}, ${key.sessionId}, ${key.teamId}, ${c.clientType}, ${c.clientName}, ${c.clientVersion},
      ${c.userAgent}, ${c.transport}, ${key.at}, now())
    ON CONFLICT (satellite_id, session_id) DO UPDATE SET team_id = EXCLUDED.team_id,
      client_type = EXCLUDED.client_type, client_name = EXCLUDED.client_name,
      client_version = EXCLUDED.client_version, user_agent = EXCLUDED.user_agent, transport = EXCLUDED.transport,
      connected_at = EXCLUDED.connected_at, updated_at = now()
    RETURNING ${columns}`);
}

/**
 * A live session's tool-call count so far. A count arriving after the disconnection (events of one
 * satellite arrive in order, but a redelivery may not) never replaces the final one.
 */
export async function recordClientActivity(db: CommonQueryMethods, key: SessionKey, a: { toolExecutionCount: number }) {
  return db.one(sql.type(clientSessionRow)`
    INSERT INTO mcp_client_sessions (satellite_id, session_id, team_id, tool_execution_count, updated_at)
    VALUES (${key.satelliteId}, ${key.sessionId}, ${key.teamId}, ${a.toolExecutionCount}, now())
    ON CONFLICT (satellite_id, session_id) DO UPDATE SET
      tool_execution_count = CASE WHEN mcp_client_sessions.disconnected_at IS NULL
        THEN EXCLUDED.tool_execution_count ELSE mcp_client_sessions.tool_execution_count END,
      updated_at = now()
    RETURNING ${columns}`);
}

export async function recordClientDisconnected(
  db: CommonQueryMethods,
  key: SessionKey,
  d: { durationSeconds: number; toolExecutionCount: number; reason: string },
) {
  return db.one(sql.type(clientSessionRow)`
    INSERT INTO mcp_client_sessions (satellite_id, session_id, team_id, disconnected_at, connection_duration_seconds,
      tool_execution_count, disconnect_reason, updated_at)
    VALUES (${key.satelliteId}, ${key.sessionId}, ${key.teamId}, ${key.at}, ${d.durationSeconds},
      ${d.toolExecutionCount}, ${d.reason}, now())
    ON CONFLICT (satellite_id, session_id) DO UPDATE SET team_id = EXCLUDED.team_id,
      disconnected_at = EXCLUDED.disconnected_at, connection_duration_seconds = EXCLUDED.connection_duration_seconds,
      tool_execution_count = EXCLUDED.tool_execution_count, disconnect_reason = EXCLUDED.disconnect_reason,
      updated_at = now()
    RETURNING ${columns}`);
}

/** Newest first; `teams` null means every session (global admins), otherwise sessions of those teams. */
export async function listClientSessions(db: CommonQueryMethods, teams: string[] | null, query: ClientActivityQuery) {
  const scope = teams === null ? sql.fragment`TRUE` : sql.fragment`team_id = ANY(${sql.array(teams, 'text')})`;
  const team = query.team_id === undefined ? sql.fragment`` : sql.fragment`AND team_id = ${query.team_id}`;
  return db.any(sql.type(clientSessionRow)`
    SELECT ${columns} FROM mcp_client_sessions WHERE ${scope} ${team}
    ORDER BY updated_at DESC, satellite_id, session_id LIMIT ${query.limit}`);
}

/** Retention: sessions without an event for `maxAgeDays` go (run by the log cleanup job). */
export async function deleteOldClientSessions(db: CommonQueryMethods, maxAgeDays: number): Promise<number> {
  const result = await db.query(sql.unsafe`
    DELETE FROM mcp_client_sessions WHERE updated_at < now() - make_interval(days => ${maxAgeDays})`);
  return result.rowCount;
}
