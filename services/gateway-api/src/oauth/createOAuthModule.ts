import type { LivePool } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import type { RouteDefinition } from '../http/defineRoute.ts';
import type { LoginGate } from '../identity/index.ts';
import { accessTokenRoutes } from './accessTokenRoutes.ts';
import {
  type ClientMetadataDocumentOptions,
  createClientMetadataDocuments,
  defaultClientMetadataDocumentOptions,
} from './createClientMetadataDocuments.ts';
import { type OAuthLifetimes, oauthServerRoutes } from './oauthServerRoutes.ts';
import { createOAuthStore } from './oauthStore.ts';
import type { ResourceServerAuthenticator } from './resourceServerAuthenticator.ts';

export type OAuthModuleOptions = {
  /** The identity schema's pool: OAuth's tables live beside users, teams and memberships. */
  pool: LivePool;
  logger: Logger;
  /** The public base URL of gateway-api: the issuer in metadata and the base of every endpoint. */
  issuerUrl: URL;
  authenticateResourceServer: ResourceServerAuthenticator;
  lifetimes?: Partial<OAuthLifetimes>;
  personalTokenMaxDays?: number;
  /** The login switch: consent, code exchange and personal access tokens stop while login is off. */
  loginGate: LoginGate;
  /**
   * Client ID Metadata Documents: how they are fetched (partial options over the defaults), or false
   * to accept registered clients only.
   */
  clientMetadataDocuments?: Partial<ClientMetadataDocumentOptions> | false;
  now?: () => number;
};

export const defaultLifetimes: OAuthLifetimes = {
  accessTokenSeconds: 3600,
  refreshTokenSeconds: 30 * 86400,
  authorizationCodeSeconds: 60,
};

/**
 * gateway-api as the OAuth 2.1 authorization server of satellites: client registration and Client ID
 * Metadata Documents, the authorization-code flow with PKCE, refresh-token rotation, revocation, introspection for
 * satellites, and personal access tokens. Users authenticate with their identity session.
 */
export function createOAuthModule(options: OAuthModuleOptions): { routes: RouteDefinition[] } {
  const now = options.now ?? Date.now;
  const store = createOAuthStore(options.pool);
  const documents =
    options.clientMetadataDocuments === false
      ? null
      : createClientMetadataDocuments({
          ...defaultClientMetadataDocumentOptions,
          ...options.clientMetadataDocuments,
          logger: options.logger,
          now,
        });
  return {
    routes: [
      ...oauthServerRoutes({
        store,
        logger: options.logger,
        now,
        issuerUrl: options.issuerUrl,
        lifetimes: { ...defaultLifetimes, ...options.lifetimes },
        authenticateResourceServer: options.authenticateResourceServer,
        documents,
        loginGate: options.loginGate,
      }),
      ...accessTokenRoutes({
        store,
        logger: options.logger,
        now,
        personalTokenMaxDays: options.personalTokenMaxDays ?? 365,
        loginGate: options.loginGate,
      }),
    ],
  };
}
