-- The last heartbeat of the outage whose notice was given: a satellite whose heartbeats stopped is told
-- to the global admins once, and again only after it came back (a newer heartbeat) and stopped again.
ALTER TABLE satellites ADD COLUMN offline_noticed_for timestamptz;
-- The watcher's look every few seconds reads only active satellites, by their last heartbeat.
CREATE INDEX satellites_active_heartbeat_idx ON satellites (last_heartbeat_at) WHERE status = 'active';
