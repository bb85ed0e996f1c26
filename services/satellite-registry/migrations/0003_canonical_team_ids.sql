-- Ids are compared, stored and announced in one form, a UUID in lower case, and gateway-api now hands
-- every id of a request on in that form. A token, satellite, command or process recorded before with
-- its team's UUID (or its installation's) in capitals would no longer be found by its team, nor serve
-- it, so it takes the same form.
UPDATE registration_tokens SET team_id = lower(team_id)
WHERE team_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' AND team_id <> lower(team_id);

UPDATE satellites SET team_id = lower(team_id)
WHERE team_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' AND team_id <> lower(team_id);

UPDATE satellite_commands SET team_id = lower(team_id)
WHERE team_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' AND team_id <> lower(team_id);

UPDATE satellite_processes
SET team_id = CASE
    WHEN team_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN lower(team_id)
    ELSE team_id
  END,
  installation_id = CASE
    WHEN installation_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN lower(installation_id)
    ELSE installation_id
  END
WHERE team_id <> lower(team_id) OR installation_id <> lower(installation_id);
