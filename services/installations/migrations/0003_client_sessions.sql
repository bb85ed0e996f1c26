-- Recent MCP client sessions of satellites (GET /api/users/me/mcp/client-activity), one row per
-- satellite session, written from mcp.client.connected/disconnected events. The log cleanup job deletes
-- rows without an event for seven days, so the table holds a bounded window of activity.
CREATE TABLE mcp_client_sessions (
  satellite_id text NOT NULL,
  session_id text NOT NULL,
  team_id text,
  client_type text,
  user_agent text,
  transport text,
  connected_at timestamptz,
  disconnected_at timestamptz,
  connection_duration_seconds double precision,
  tool_execution_count integer,
  disconnect_reason text,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (satellite_id, session_id)
);
CREATE INDEX mcp_client_sessions_newest ON mcp_client_sessions (updated_at DESC);
CREATE INDEX mcp_client_sessions_team_newest ON mcp_client_sessions (team_id, updated_at DESC);
