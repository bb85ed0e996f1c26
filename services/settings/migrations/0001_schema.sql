COMMENT ON SCHEMA settings IS 'Owned by the settings service: setting groups, settings, database setup.';
