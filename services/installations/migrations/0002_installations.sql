-- MCP server templates: the catalogue global admins curate.
CREATE TABLE mcp_server_templates (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  description text,
  transport text NOT NULL CHECK (transport IN ('stdio', 'http', 'sse')),
  command text,
  args jsonb NOT NULL DEFAULT '[]',
  env jsonb NOT NULL DEFAULT '{}',
  url text,
  headers jsonb NOT NULL DEFAULT '{}',
  -- Aggregated over the template's installations by the template health job.
  health_status text CHECK (health_status IN ('healthy', 'unhealthy', 'unknown')),
  last_health_check_at timestamptz,
  health_check_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (transport <> 'stdio' OR command IS NOT NULL),
  CHECK (transport = 'stdio' OR url IS NOT NULL)
);

-- Team installations: the team level of the configuration merge and the installation's status.
CREATE TABLE mcp_installations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  team_id text NOT NULL,
  -- Part of the process id {server_slug}-{team_slug}-{installation_id}; taken from identity at creation.
  team_slug text NOT NULL,
  template_id uuid NOT NULL REFERENCES mcp_server_templates (id) ON DELETE RESTRICT,
  name text NOT NULL,
  args jsonb NOT NULL DEFAULT '[]',
  -- {env, headers} as JSON, AES-256-GCM with 'installation:<id>' as additional data: values are credentials.
  secret_config text NOT NULL,
  env_keys text[] NOT NULL DEFAULT '{}',
  header_keys text[] NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'provisioning' CHECK (status IN (
    'provisioning', 'command_received', 'connecting', 'discovering_tools', 'syncing_tools', 'online',
    'restarting', 'offline', 'error', 'requires_reauth', 'permanently_failed')),
  status_message text,
  status_updated_at timestamptz NOT NULL DEFAULT now(),
  last_health_check_at timestamptz,
  last_credential_check_at timestamptz,
  -- Satellite time of the event behind the last status change: an older event arriving late is ignored.
  status_source_at timestamptz,
  settings jsonb NOT NULL DEFAULT '{"request_logging_enabled": false}',
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (team_id, name)
);
CREATE INDEX mcp_installations_template ON mcp_installations (template_id);

-- The user level of the merge: what one member adds to a team installation.
CREATE TABLE mcp_user_configs (
  installation_id uuid NOT NULL REFERENCES mcp_installations (id) ON DELETE CASCADE,
  user_id text NOT NULL,
  args jsonb NOT NULL DEFAULT '[]',
  -- {env} as JSON, encrypted with 'user-config:<installation id>:<user id>' as additional data.
  secret_config text NOT NULL,
  env_keys text[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (installation_id, user_id)
);

-- Batched stderr of stdio servers. The cleanup job keeps the newest 100 lines per installation; the
-- index serves both the newest-first pages and the cleanup's per-installation cut-off search.
CREATE TABLE server_logs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  installation_id uuid NOT NULL REFERENCES mcp_installations (id) ON DELETE CASCADE,
  team_id text NOT NULL,
  log_level text NOT NULL CHECK (log_level IN ('debug', 'info', 'warn', 'error')),
  message text NOT NULL,
  "timestamp" timestamptz NOT NULL,
  -- The satellite event and line position: a redelivered event inserts nothing twice.
  event_id uuid NOT NULL,
  line_no integer NOT NULL,
  UNIQUE (event_id, line_no)
);
CREATE INDEX server_logs_newest ON server_logs (installation_id, id DESC);

-- One tool execution. The id is the satellite event's id, so a redelivered event is stored once.
CREATE TABLE request_logs (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  installation_id uuid NOT NULL REFERENCES mcp_installations (id) ON DELETE CASCADE,
  team_id text NOT NULL,
  tool_name text NOT NULL,
  request_params jsonb NOT NULL,
  -- Kept only while the installation's request_logging_enabled is true (checked when stored).
  tool_response jsonb,
  duration_ms double precision NOT NULL,
  success boolean NOT NULL,
  error_message text,
  "timestamp" timestamptz NOT NULL
);
CREATE INDEX request_logs_newest ON request_logs (installation_id, seq DESC);

-- Tools of an installation as its last discovery found them, with token counts for the savings figure.
CREATE TABLE tool_metadata (
  installation_id uuid NOT NULL REFERENCES mcp_installations (id) ON DELETE CASCADE,
  server_slug text NOT NULL,
  tool_name text NOT NULL,
  description text NOT NULL,
  input_schema jsonb NOT NULL,
  token_count integer NOT NULL,
  discovered_at timestamptz NOT NULL,
  PRIMARY KEY (installation_id, tool_name)
);

-- Commands to queue through the registry, written in the transaction of the change that needs them and
-- delivered after commit (and retried while the registry is unreachable), so no change goes unannounced.
CREATE TABLE command_outbox (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  command_type text NOT NULL,
  priority text NOT NULL,
  payload jsonb NOT NULL,
  correlation_id text NOT NULL UNIQUE,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- Kept a day after delivery, so a retried job tick finds its correlation id and queues nothing twice.
  delivered_at timestamptz
);
CREATE INDEX command_outbox_due ON command_outbox (next_attempt_at) WHERE delivered_at IS NULL;

-- Status changes to publish as evt.installation.status_changed, written with the change and published
-- after commit; the id is the Nats-Msg-Id, so a retried publish is stored once.
CREATE TABLE event_outbox (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  subject text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);
