-- Ids are compared, stored and announced in one form, a UUID in lower case, and gateway-api now hands
-- every id of a request on in that form. A row written before with its team's UUID in capitals (a
-- global admin's path in capitals) would no longer be found by its team, so it takes the same form.
-- Should the team already have an installation of the same name in another spelling of its id (the
-- same team, written twice), the one in capitals keeps its name with its id's first 8 characters, so
-- the unique name per team holds.
UPDATE mcp_installations i
SET name = i.name || '-' || left(i.id::text, 8)
WHERE i.team_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
  AND i.team_id <> lower(i.team_id)
  AND EXISTS (
    SELECT 1 FROM mcp_installations o
    WHERE o.id <> i.id AND lower(o.team_id) = lower(i.team_id) AND o.name = i.name
  );

UPDATE mcp_installations SET team_id = lower(team_id)
WHERE team_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' AND team_id <> lower(team_id);

UPDATE server_logs SET team_id = lower(team_id)
WHERE team_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' AND team_id <> lower(team_id);

UPDATE request_logs SET team_id = lower(team_id)
WHERE team_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' AND team_id <> lower(team_id);

UPDATE mcp_client_sessions SET team_id = lower(team_id)
WHERE team_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' AND team_id <> lower(team_id);
