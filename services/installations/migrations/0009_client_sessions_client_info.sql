-- The name and version an MCP client gives in initialize (clientInfo): the user agent of most clients
-- (the SDKs, scripts) names no product, so without them every session read as "unknown".
ALTER TABLE mcp_client_sessions ADD COLUMN client_name text, ADD COLUMN client_version text;
