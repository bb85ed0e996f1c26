-- Registration tokens: the JWT itself is never stored; its id (the `jti` claim) names this row, which
-- records whether it was used or revoked, so a token is consumed once however often it is replayed.
CREATE TABLE registration_tokens (
  id uuid PRIMARY KEY,
  scope text NOT NULL CHECK (scope IN ('global', 'team')),
  team_id text,
  description text,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  used_by_satellite_id uuid,
  revoked_at timestamptz,
  CHECK ((scope = 'team') = (team_id IS NOT NULL))
);
CREATE INDEX registration_tokens_scope_idx ON registration_tokens (scope, team_id, created_at DESC);

-- Satellites. The API key is `<api_key_id>.<secret>`: the id finds this row by a unique index, the
-- secret is checked against api_key_hash (Argon2id), so authentication never scans other rows.
CREATE TABLE satellites (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  satellite_type text NOT NULL CHECK (satellite_type IN ('global', 'team')),
  team_id text,
  status text NOT NULL DEFAULT 'inactive' CHECK (status IN ('inactive', 'active', 'revoked')),
  capabilities jsonb NOT NULL DEFAULT '[]',
  system_info jsonb NOT NULL DEFAULT '{}',
  satellite_url text,
  api_key_id text NOT NULL UNIQUE,
  api_key_hash text NOT NULL,
  ip_allowlist text[] NOT NULL DEFAULT '{}',
  registration_token_id uuid REFERENCES registration_tokens (id),
  created_by text,
  registered_at timestamptz NOT NULL DEFAULT now(),
  last_heartbeat_at timestamptz,
  -- When a command was last queued for it: the polling mode slows down after a quiet period.
  last_command_at timestamptz,
  revoked_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((satellite_type = 'team') = (team_id IS NOT NULL))
);
CREATE INDEX satellites_team_idx ON satellites (team_id) WHERE team_id IS NOT NULL;
CREATE INDEX satellites_global_idx ON satellites (satellite_type) WHERE satellite_type = 'global';
ALTER TABLE registration_tokens
  ADD CONSTRAINT registration_tokens_satellite_fk FOREIGN KEY (used_by_satellite_id) REFERENCES satellites (id);

-- The command queue: one row per command and target satellite, with its team scope. A poll leases
-- pending rows by priority rank then age; a lease that runs out returns the row to the queue until
-- max_attempts deliveries were made.
CREATE TABLE satellite_commands (
  id uuid PRIMARY KEY,
  satellite_id uuid NOT NULL REFERENCES satellites (id) ON DELETE CASCADE,
  team_id text NOT NULL,
  command_type text NOT NULL CHECK (command_type IN ('spawn', 'kill', 'restart', 'configure', 'health_check')),
  priority text NOT NULL CHECK (priority IN ('immediate', 'high', 'normal', 'low')),
  priority_rank smallint NOT NULL,
  payload jsonb NOT NULL,
  correlation_id text,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'leased', 'acknowledged', 'executing', 'completed', 'failed', 'expired')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 3,
  lease_expires_at timestamptz,
  expires_at timestamptz,
  result jsonb,
  error_message text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz
);
-- The poll's index: only rows still waiting for delivery, per satellite, in delivery order. Its size
-- depends on a satellite's own queue, never on how many satellites exist.
CREATE INDEX satellite_commands_queue_idx ON satellite_commands (satellite_id, priority_rank, created_at, id)
  WHERE status IN ('pending', 'leased');
CREATE INDEX satellite_commands_correlation_idx ON satellite_commands (correlation_id) WHERE correlation_id IS NOT NULL;

-- Heartbeats as a time series: system metrics in columns, the per-process metrics of that moment as JSON.
CREATE TABLE satellite_heartbeats (
  id bigserial PRIMARY KEY,
  satellite_id uuid NOT NULL REFERENCES satellites (id) ON DELETE CASCADE,
  received_at timestamptz NOT NULL,
  cpu_percent real NOT NULL,
  memory_used_mb double precision NOT NULL,
  memory_total_mb double precision NOT NULL,
  disk_used_mb double precision,
  disk_total_mb double precision,
  network_status text NOT NULL,
  process_total integer NOT NULL,
  process_running integer NOT NULL,
  process_failed integer NOT NULL,
  uptime_seconds double precision NOT NULL,
  processes jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX satellite_heartbeats_series_idx ON satellite_heartbeats (satellite_id, received_at DESC);

-- The latest metrics of each process a satellite runs (process monitoring).
CREATE TABLE satellite_processes (
  satellite_id uuid NOT NULL REFERENCES satellites (id) ON DELETE CASCADE,
  process_id text NOT NULL,
  installation_id text NOT NULL,
  team_id text NOT NULL,
  status text NOT NULL,
  health text NOT NULL CHECK (health IN ('healthy', 'unhealthy', 'unknown')),
  request_count integer NOT NULL,
  avg_response_time_ms double precision,
  p95_response_time_ms double precision,
  cpu_percent double precision,
  memory_mb double precision,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (satellite_id, process_id)
);

-- Audit and usage: registrations, activations, revocations, refused registrations.
CREATE TABLE satellite_usage_logs (
  id bigserial PRIMARY KEY,
  satellite_id uuid REFERENCES satellites (id) ON DELETE SET NULL,
  action text NOT NULL,
  actor text,
  ip_address text,
  details jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX satellite_usage_logs_satellite_idx ON satellite_usage_logs (satellite_id, created_at DESC);
