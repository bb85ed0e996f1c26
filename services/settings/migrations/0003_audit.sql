-- Audit entries of the actions this service performs, written in the same transaction as the action
-- (libs/audit recordAudit) and delivered to the audit log by the audit relay after commit, so an action
-- never lacks its entry and one rolled back has none. A row leaves only once the log has stored it.
CREATE TABLE audit_outbox (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  entry jsonb NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text
);
CREATE INDEX audit_outbox_due ON audit_outbox (next_attempt_at);

-- The audit log itself: every owner's entries, stored once by id (a repeated delivery changes nothing).
-- Read newest first with keyset paging on (occurred_at, id); a team's admins read their team's rows.
-- published: the entry has been put on evt.audit.recorded (the live streams), which happens after the
-- row commits; a delivery repeated before that finished publishes it then.
CREATE TABLE audit_entries (
  id uuid PRIMARY KEY,
  occurred_at timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  source text NOT NULL,
  action text NOT NULL,
  actor_kind text NOT NULL,
  actor_id text,
  actor_email text,
  actor_name text,
  target_kind text NOT NULL,
  target_id text,
  team_id text,
  outcome text NOT NULL CHECK (outcome IN ('success', 'failure')),
  reason text,
  source_ip text,
  request_id text,
  details jsonb NOT NULL DEFAULT '{}',
  published boolean NOT NULL DEFAULT false
);
CREATE INDEX audit_entries_time ON audit_entries (occurred_at DESC, id DESC);
CREATE INDEX audit_entries_team_time ON audit_entries (team_id, occurred_at DESC, id DESC) WHERE team_id IS NOT NULL;
CREATE INDEX audit_entries_actor_time ON audit_entries (actor_id, occurred_at DESC, id DESC);
CREATE INDEX audit_entries_action_time ON audit_entries (action, occurred_at DESC, id DESC);
CREATE INDEX audit_entries_unpublished ON audit_entries (id) WHERE NOT published;
CREATE INDEX audit_entries_actor_email_time ON audit_entries (lower(actor_email), occurred_at DESC, id DESC);
