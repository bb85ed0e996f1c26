-- The fast verifier of a satellite's API key (SHA-256 of the key under a label of its own; see
-- satelliteKeyDigest in libs/crypto), kept beside its Argon2 hash so that a key verified once is known to
-- every gateway-api replica and across their restarts: Argon2 then runs only on a key's first sight
-- anywhere. Set at registration; for a key issued before it existed, by gateway-api after its first
-- successful Argon2 verification (registry.apikey.remember). Null: not verified since.
ALTER TABLE satellites ADD COLUMN api_key_digest text;
