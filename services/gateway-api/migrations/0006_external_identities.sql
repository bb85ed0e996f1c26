-- Sign-in with an outside account: a code-hosting account (the OAuth web flow) or an OpenID Connect
-- provider's account. Each row says which Orbital user an outside account is; the first sign-in links it
-- (by a verified e-mail address) or creates the user.

CREATE TABLE external_identities (
  provider text NOT NULL CHECK (provider IN ('repohost', 'oidc')),
  -- Who vouches for the subject: the code-hosting site's web address, or the OpenID issuer. Subjects are
  -- unique per issuer only, so a changed issuer (another GitHub Enterprise, another tenant) never reuses a link.
  issuer text NOT NULL CHECK (length(issuer) BETWEEN 1 AND 2000),
  -- The provider's stable id of the account (a GitHub user id, an OpenID `sub`), never the e-mail address,
  -- which its owner may change.
  subject text NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The verified address the provider gave at the last sign-in, for the people pages.
  email text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, issuer, subject)
);
CREATE INDEX external_identities_user_id_idx ON external_identities (user_id);
