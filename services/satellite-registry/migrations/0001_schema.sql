COMMENT ON SCHEMA registry IS 'Owned by the satellite-registry service. Satellite registry: satellites, registration tokens, API keys, heartbeats, commands, processes, usage.';
