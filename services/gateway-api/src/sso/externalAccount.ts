/** An account at an outside provider, as the provider vouched for it during one sign-in. */
export type ExternalAccount = {
  provider: 'repohost' | 'oidc';
  /** Who vouches: the code-hosting site's web address, or the OpenID issuer. */
  issuer: string;
  /** The provider's stable id of the account. */
  subject: string;
  /** The address the provider gave, if any, and whether the provider says its owner proved it. */
  email: string | null;
  emailVerified: boolean;
  /** A display name for a user created from this account. */
  name: string;
  /** Every claim the provider made (OpenID Connect), for the role and team mappings. */
  claims: Record<string, unknown>;
};
