-- Remote MCP servers behind OAuth: a template says whether its server needs a token per user or one per
-- team; Orbital runs the authorization-code flow (PKCE, resource indicator) and keeps the tokens here,
-- encrypted like installation secrets.
ALTER TABLE mcp_server_templates ADD COLUMN oauth jsonb;

-- Clients Orbital registered dynamically (RFC 7591) at an authorization server, one per server and
-- callback URL, reused by every installation. The client information (its secret, when the server gave
-- one) is sealed with 'oauth-client:<issuer>' as additional data.
CREATE TABLE oauth_clients (
  issuer text NOT NULL,
  redirect_uri text NOT NULL,
  sealed_client text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, redirect_uri)
);

-- Authorization requests in progress. The state is kept only as its SHA-256 and used once; the browser
-- binding (a cookie of the browser that started the flow) only as its SHA-256. The PKCE verifier and the
-- rest of what the callback needs are sealed with 'oauth-flow:<state hash>'.
CREATE TABLE oauth_flows (
  state_hash text PRIMARY KEY,
  installation_id uuid NOT NULL REFERENCES mcp_installations (id) ON DELETE CASCADE,
  team_id text NOT NULL,
  started_by text NOT NULL,
  -- A user id (per-user tokens) or 'team'.
  token_owner text NOT NULL,
  binding_hash text NOT NULL,
  sealed_flow text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_flows_expiry ON oauth_flows (expires_at);

-- The tokens of an installation: one per user (per-user templates) or one for the team ('team').
-- Access and refresh tokens are sealed with 'oauth-token:<installation id>:<owner>'; what refreshing
-- needs besides (the authorization server's metadata, the resource, the client) is kept beside them.
CREATE TABLE oauth_tokens (
  installation_id uuid NOT NULL REFERENCES mcp_installations (id) ON DELETE CASCADE,
  token_owner text NOT NULL,
  team_id text NOT NULL,
  sealed_tokens text NOT NULL,
  scope text,
  expires_at timestamptz,
  issuer text NOT NULL,
  redirect_uri text NOT NULL,
  resource text,
  server_metadata jsonb NOT NULL,
  authorized_by text NOT NULL,
  authorized_at timestamptz NOT NULL DEFAULT now(),
  refreshed_at timestamptz,
  PRIMARY KEY (installation_id, token_owner)
);

-- Tokens to revoke at their authorization server (RFC 7009) once an installation or an authorization is
-- removed: written in the removing transaction, sent after commit and retried while the server is away.
-- The tokens and the client are sealed with 'oauth-revocation:<id>'.
CREATE TABLE oauth_revocations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  revocation_endpoint text NOT NULL,
  sealed_request text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_revocations_due ON oauth_revocations (next_attempt_at);
