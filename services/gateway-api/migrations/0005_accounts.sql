-- People's life cycle: verified addresses, disabled and deleted accounts, single-use links sent by mail
-- (address verification, password reset), team invitations, and the outbox mail is sent from.

-- An account that signs in only through single sign-on has no password; a deleted one has neither
-- password nor address.
ALTER TABLE users ALTER COLUMN password_hash DROP NOT NULL;
ALTER TABLE users ALTER COLUMN email DROP NOT NULL;
-- Set once the person followed the mailed link (or an admin vouched by creating the account).
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
UPDATE users SET email_verified_at = created_at;
-- A disabled account keeps everything but cannot sign in; its sessions and tokens stop.
ALTER TABLE users ADD COLUMN disabled_at timestamptz;
-- A deleted account is a tombstone: its id and name stay, so what the person created stays attributed;
-- the address is freed (it may be invited again) and everything that let them in is gone.
ALTER TABLE users ADD COLUMN deleted_at timestamptz;
ALTER TABLE users ADD CONSTRAINT users_tombstone_has_no_address CHECK ((deleted_at IS NULL) = (email IS NOT NULL));
ALTER TABLE users ADD COLUMN last_login_at timestamptz;
CREATE INDEX users_global_role_idx ON users (global_role) WHERE deleted_at IS NULL AND disabled_at IS NULL;

-- Single-use links mailed to a person: the token is made when the mail is sent (so no token ever waits in
-- the outbox), and only its SHA-256 is kept; a new link of the same purpose replaces the previous one.
CREATE TABLE account_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  purpose text NOT NULL CHECK (purpose IN ('verify_email', 'password_reset')),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash bytea UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX account_tokens_user_id_idx ON account_tokens (user_id, purpose);

-- An invitation of an e-mail address to a team, by a team admin; accepted by setting a password (a new
-- person) or by signing in (an existing account, or single sign-on). The token is made when the mail
-- is sent, like account tokens.
CREATE TABLE invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  email text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  role text NOT NULL CHECK (role IN ('team_admin', 'team_user')),
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  token_hash bytea UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by uuid REFERENCES users (id) ON DELETE SET NULL,
  revoked_at timestamptz
);
-- One open invitation per address and team: inviting again replaces it.
CREATE UNIQUE INDEX invitations_open_key ON invitations (team_id, lower(email))
  WHERE accepted_at IS NULL AND revoked_at IS NULL;

-- Mail waiting to be sent. A row names what to send and to whom; the text is made when it is sent (with
-- the console's address of that moment), and a link's token is made then too, so nothing secret waits
-- here. Replicas claim rows with FOR UPDATE SKIP LOCKED and a lease, so each mail is sent by one of them.
CREATE TABLE mail_outbox (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind text NOT NULL,
  recipient text NOT NULL CHECK (length(recipient) BETWEEN 3 AND 254),
  -- What the text needs (names, team, satellite): never a secret.
  params jsonb NOT NULL DEFAULT '{}',
  -- The account token or invitation whose link the mail carries.
  token_ref uuid,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'expired')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- A replica sending the row holds it until then; a replica that died mid-send lets it go at the end.
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  -- A mail not sent by then is dropped (a reset link nobody received in time is worth nothing).
  expires_at timestamptz NOT NULL
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE status = 'pending';
