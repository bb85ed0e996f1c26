import type { Logger } from '@orbital/logger';
import type { SettingsReader } from '@orbital/settings-client';
import type { OidcClients } from './createOidcClients.ts';
import type { ExternalAccount } from './externalAccount.ts';
import type { AccessMapping } from './externalIdentityStore.ts';
import { mappedGlobalRole, mappedTeams } from './mapClaims.ts';
import {
  type OidcSettings,
  type RepohostSettings,
  readOidcSettings,
  readRepohostSettings,
} from './readSignInSettings.ts';
import { fetchRepohostAccount, repohostAuthorizeUrl } from './repohostClient.ts';
import { SignInFailure } from './signInFailure.ts';

export type AuthorizationRequest = { state: string; nonce: string; codeChallenge: string };
export type ProviderCallback = { query: URLSearchParams; state: string; nonce: string; codeVerifier: string };

/** What differs between the ways of signing in with an outside account; the flow around it is shared. */
export type SignInProvider<S = unknown> = {
  id: 'repohost' | 'oidc';
  /** The name on the button and on error pages. */
  label(settings: S | null): string;
  /** Its settings: null when it is off; a `misconfigured` failure when it is on but cannot work. */
  read(): Promise<S | null>;
  authorizeUrl(settings: S, request: AuthorizationRequest): Promise<URL>;
  account(settings: S, callback: ProviderCallback): Promise<ExternalAccount>;
  /** Refuses an account the settings do not admit (an e-mail domain that is not allowed). */
  admit(settings: S, account: ExternalAccount): void;
  /** The global role and team memberships the account's claims give, applied at every sign-in. */
  mapping(settings: S, account: ExternalAccount): AccessMapping;
};

export function repohostProvider(deps: { settings: SettingsReader; timeoutMs: number; logger: Logger }) {
  const provider: SignInProvider<RepohostSettings> = {
    id: 'repohost',
    label: () => 'GitHub',
    read: () => readRepohostSettings(deps.settings),
    authorizeUrl: async (settings, request) => repohostAuthorizeUrl(settings, request),
    account: (settings, callback) => {
      const code = callback.query.get('code') ?? '';
      return fetchRepohostAccount(
        settings,
        { code, codeVerifier: callback.codeVerifier },
        { timeoutMs: deps.timeoutMs, logger: deps.logger },
      );
    },
    admit: () => {},
    // Roles and teams of code-hosting users are managed in Orbital.
    mapping: () => ({ globalRole: null, teams: null }),
  };
  return provider;
}

export function oidcProvider(deps: { settings: SettingsReader; clients: OidcClients }) {
  const provider: SignInProvider<OidcSettings> = {
    id: 'oidc',
    label: (settings) => settings?.displayName ?? 'single sign-on',
    read: () => readOidcSettings(deps.settings),
    authorizeUrl: (settings, request) => deps.clients.authorizeUrl(settings, request),
    account: (settings, callback) => deps.clients.account(settings, callback),
    admit(settings, account) {
      if (settings.allowedDomains.length === 0) return;
      if (!account.email) throw new SignInFailure('email_missing');
      const domain = account.email.slice(account.email.lastIndexOf('@') + 1).toLowerCase();
      if (!settings.allowedDomains.includes(domain)) throw new SignInFailure('email_domain_not_allowed');
    },
    mapping: (settings, account) => ({
      globalRole: settings.roleMapping && mappedGlobalRole(account.claims, settings.roleClaim, settings.roleMapping),
      teams: settings.teamMapping && mappedTeams(account.claims, settings.teamClaim, settings.teamMapping),
    }),
  };
  return provider;
}
