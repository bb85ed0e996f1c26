COMMENT ON SCHEMA identity IS 'Owned by gateway-api: users, teams, memberships, sessions.';
