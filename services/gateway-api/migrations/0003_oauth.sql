-- Tokens for MCP clients of satellites: OAuth 2.1 clients registered dynamically (RFC 7591),
-- authorization codes, and grants with their access and refresh tokens. A grant is what a user sees as
-- "a token": a personal access token, or one authorization of one client. Every grant is for ONE team.
-- Secrets (client secrets, codes, tokens) are stored only as SHA-256 hashes: they are 256 random bits,
-- so a fast hash is enough, and a leaked table gives no working credential.

CREATE TABLE oauth_clients (
  client_id text PRIMARY KEY,
  client_secret_hash bytea,
  client_name text,
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
  token_endpoint_auth_method text NOT NULL CHECK (token_endpoint_auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
  -- The registration as the client sent it (RFC 7591 section 3.2.1 echoes it back).
  metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oauth_grants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind text NOT NULL CHECK (kind IN ('oauth', 'personal')),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  client_id text REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  scope text NOT NULL,
  -- RFC 8707 resource (the satellite's /mcp URL) an OAuth grant is limited to; null for personal tokens.
  resource text,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- A personal token's end; an OAuth grant ends with its last refresh token.
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CHECK ((kind = 'oauth') = (client_id IS NOT NULL))
);
CREATE INDEX oauth_grants_user_id_idx ON oauth_grants (user_id);
CREATE INDEX oauth_grants_team_id_idx ON oauth_grants (team_id);

CREATE TABLE oauth_tokens (
  token_hash bytea PRIMARY KEY,
  grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  -- A refresh token is revoked when it is used (rotation); a second use revokes the whole grant.
  revoked_at timestamptz
);
CREATE INDEX oauth_tokens_grant_id_idx ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_expires_at_idx ON oauth_tokens (expires_at);

CREATE TABLE oauth_authorization_codes (
  code_hash bytea PRIMARY KEY,
  client_id text NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  -- PKCE, S256 only: base64url(SHA-256(code_verifier)).
  code_challenge text NOT NULL,
  scope text NOT NULL,
  resource text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  -- The grant the code was exchanged for: a second exchange of the code revokes it (RFC 6749 4.1.2).
  grant_id uuid REFERENCES oauth_grants (id) ON DELETE SET NULL
);
