COMMENT ON SCHEMA installations IS 'Owned by the installations service. Installations: MCP server templates, team installations, status, server and request logs, tool metadata.';
