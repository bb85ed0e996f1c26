-- Which tools of an installation run and which ask the caller first. A row with an installation is that
-- installation's rule; a row without one is the team's rule for the tool of every installation of the
-- server (server_slug). needs_confirmation null follows the tool's annotations (destructiveHint).
CREATE TABLE tool_policies (
  team_id text NOT NULL,
  installation_id uuid REFERENCES mcp_installations (id) ON DELETE CASCADE,
  server_slug text NOT NULL,
  tool_name text NOT NULL,
  enabled boolean NOT NULL,
  needs_confirmation boolean,
  updated_by text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE NULLS NOT DISTINCT (team_id, installation_id, server_slug, tool_name)
);
CREATE INDEX tool_policies_of_installation ON tool_policies (installation_id) WHERE installation_id IS NOT NULL;
CREATE INDEX tool_policies_of_team_server ON tool_policies (team_id, server_slug) WHERE installation_id IS NULL;

-- What a satellite does with a call that needs confirmation from a client that cannot be asked.
ALTER TABLE mcp_installations ADD COLUMN unconfirmed_calls text NOT NULL DEFAULT 'refuse'
  CHECK (unconfirmed_calls IN ('refuse', 'run'));

-- Tool annotations as the last discovery found them (destructiveHint decides confirmation).
ALTER TABLE tool_metadata ADD COLUMN annotations jsonb;
