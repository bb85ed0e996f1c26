-- Status changes are published on a subject per team and installation
-- (evt.installation.status_changed.<team_id>.<installation_id>), so a team's status stream reads only
-- its own team. Rows queued before that change still name the old shared subject: give them theirs,
-- so the relay publishes them like any other.
UPDATE event_outbox
SET subject = 'evt.installation.status_changed.' || (payload ->> 'team_id') || '.' || (payload ->> 'installation_id')
WHERE subject = 'evt.installation.status_changed';
