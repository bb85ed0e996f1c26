-- Tool definitions of an installation by hash, as its satellites listed them. The server's first listing
-- is approved as it is (nothing to compare it with); a later new tool or changed definition is pending
-- until a team admin approves it, and satellites hold it back meanwhile. One approved definition per tool.
CREATE TABLE tool_definitions (
  installation_id uuid NOT NULL REFERENCES mcp_installations (id) ON DELETE CASCADE,
  tool_name text NOT NULL,
  definition_hash text NOT NULL,
  definition jsonb NOT NULL,
  state text NOT NULL CHECK (state IN ('approved', 'pending')),
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  approved_by text,
  approved_at timestamptz,
  PRIMARY KEY (installation_id, tool_name, definition_hash)
);
CREATE UNIQUE INDEX tool_definitions_one_approved ON tool_definitions (installation_id, tool_name)
  WHERE state = 'approved';

-- An installation may opt out: its satellites then serve whatever the server lists.
ALTER TABLE mcp_installations ADD COLUMN pin_tool_definitions boolean NOT NULL DEFAULT true;
