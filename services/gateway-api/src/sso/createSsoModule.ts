import { recordAudit } from '@orbital/audit';
import type { LivePool } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import type { SettingsReader } from '@orbital/settings-client';
import type { Redis } from 'ioredis';
import type { Route } from '../http/defineRoute.ts';
import type { IdentityModule } from '../identity/index.ts';
import { createOidcClients } from './createOidcClients.ts';
import { createSignInStates } from './createSignInStates.ts';
import { createExternalIdentityStore } from './externalIdentityStore.ts';
import { oidcProvider, repohostProvider } from './signInProviders.ts';
import { signInRoutes } from './signInRoutes.ts';

export type SsoModuleOptions = {
  /** The identity schema's pool: outside accounts are linked to its users. */
  pool: LivePool;
  redis: Redis;
  /** Namespace of this stack's Redis keys. */
  redisKeyPrefix: string;
  settings: SettingsReader;
  identity: Pick<IdentityModule, 'issueSession' | 'evictUser' | 'getUser' | 'loginGate'>;
  logger: Logger;
  /** How long a started sign-in may take before its callback is refused. */
  stateTtlMs: number;
  /** The longest wait for any one request to a provider. */
  providerTimeoutMs: number;
  now?: () => number;
};

/**
 * Sign-in with an outside account: the code-hosting provider's OAuth web flow and OpenID Connect single
 * sign-on, both ending in an ordinary identity session. gateway-api is the OAuth *client* here; the
 * authorization server it is for satellites' MCP clients is src/oauth, a different thing.
 */
export function createSsoModule(options: SsoModuleOptions): { routes: Route[] } {
  const now = options.now ?? Date.now;
  const { settings, logger } = options;
  const clients = createOidcClients({ timeoutMs: options.providerTimeoutMs, cacheMs: 10 * 60_000, logger, now });
  return {
    routes: signInRoutes({
      providers: [
        repohostProvider({ settings, timeoutMs: options.providerTimeoutMs, logger }),
        oidcProvider({ settings, clients }),
      ],
      states: createSignInStates({
        redis: options.redis,
        keyPrefix: options.redisKeyPrefix,
        ttlMs: options.stateTtlMs,
        now,
      }),
      store: createExternalIdentityStore(options.pool),
      identity: options.identity,
      settings,
      loginEnabled: () => options.identity.loginGate.isEnabled(),
      recordAudit: (db, record) => recordAudit(db ?? options.pool.get(), record),
      logger,
    }),
  };
}
