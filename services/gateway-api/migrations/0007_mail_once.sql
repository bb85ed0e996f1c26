-- A mail queued on behalf of another service (the satellite registry's offline notice) may be asked for
-- twice: a retried request, or two registry replicas noticing one outage. Such a mail carries a key
-- naming what it is about and whom it is for; a second mail with the same key is not queued.
ALTER TABLE mail_outbox ADD COLUMN once_key text;
CREATE UNIQUE INDEX mail_outbox_once_key_idx ON mail_outbox (once_key) WHERE once_key IS NOT NULL;
