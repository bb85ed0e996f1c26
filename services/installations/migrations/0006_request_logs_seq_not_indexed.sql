-- A request log's seq orders an installation's logs, through request_logs_newest (installation_id,
-- seq DESC); nothing looks a log up by seq alone. Its UNIQUE index was one more index to write for
-- every stored tool call (about a fifteenth of PostgreSQL's work per insert), and says nothing the
-- identity column does not already guarantee: GENERATED ALWAYS takes every value from its sequence.
ALTER TABLE request_logs DROP CONSTRAINT request_logs_seq_key;
