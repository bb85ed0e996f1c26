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
