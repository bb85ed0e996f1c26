import { processActor, recordAudit } from '@orbital/audit';
import type { Bus } from '@orbital/bus';
import type { LivePool } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import type { SettingsReader } from '@orbital/settings-client';
import type { Redis } from 'ioredis';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { AccessResolver, RouteDefinition, SatelliteAuthenticator } from '../http/defineRoute.ts';
import { createMailSender, type MailSender } from '../mail/createMailSender.ts';
import { serveSatelliteOfflineNotice } from '../mail/serveSatelliteOfflineNotice.ts';
import { accountRoutes } from './accountRoutes.ts';
import { createAccountStore } from './accountStore.ts';
import { authRoutes } from './authRoutes.ts';
import { createAccessResolver } from './createAccessResolver.ts';
import { createIdentityAudit } from './createIdentityAudit.ts';
import { createLinkMaker } from './createLinkMaker.ts';
import { createLoginGate, type LoginGate } from './createLoginGate.ts';
import { createLoginRateLimiter, type LoginRateLimits } from './createLoginRateLimiter.ts';
import { createMailRequestLimiter, type MailRequestLimits } from './createMailRequestLimiter.ts';
import { createReplicaBroadcast } from './createReplicaBroadcast.ts';
import { createSessionAuthenticator } from './createSessionAuthenticator.ts';
import { createSessionCache } from './createSessionCache.ts';
import { createSessionIssuer, type SessionIssuer } from './createSessionIssuer.ts';
import { ensureFirstAdmin, type FirstAdmin } from './ensureFirstAdmin.ts';
import { createIdentityStore, type UserRow } from './identityStore.ts';
import { serveIdentitySubjects } from './serveIdentitySubjects.ts';
import { teamRoutes } from './teamRoutes.ts';
import { userRoutes } from './userRoutes.ts';

export type IdentityModuleOptions = {
  bus: Bus;
  /** The identity schema's pool, behind its getter (it is not ready before database setup). */
  pool: LivePool;
  redis: Redis;
  /** The platform's settings (the login switch, e-mail registration, mail, the console's address). */
  settings: SettingsReader;
  /** Namespace of this stack's Redis keys. */
  redisKeyPrefix: string;
  logger: Logger;
  firstAdmin: FirstAdmin | null;
  sessionTtlMs?: number;
  sessionCacheTtlMs?: number;
  loginRateLimits?: LoginRateLimits;
  /** Limits of the public requests that send mail (registration, reset, a new confirmation link). */
  mailRequestLimits?: MailRequestLimits;
  /** The mail sender's pace and the TLS options of its SMTP connections (tests trust their server). */
  mail?: { intervalMs?: number; retryBaseMs?: number; maxAttempts?: number; tls?: SMTPTransport.Options['tls'] };
  /** How long a revocation waits for other replicas to confirm their eviction. */
  replicaAckTimeoutMs?: number;
  satellite?: SatelliteAuthenticator;
  now?: () => number;
};

export type IdentityModule = {
  routes: RouteDefinition[];
  resolveAccess: AccessResolver;
  replicaId: string;
  /** The login switch (`global.enable_login`): every way of obtaining a new session or token asks it. */
  loginGate: LoginGate;
  /**
   * Hands out a session to a person who proved who they are (any sign-in route: the login switch, a
   * disabled or unconfirmed account are checked there).
   */
  issueSession: SessionIssuer;
  /** The mail outbox's sender (identity owns people, so it owns the mail it sends them). */
  mail: MailSender;
  /** An account that exists (not deleted), as sign-in routes hand it to issueSession. */
  getUser(userId: string): Promise<UserRow | null>;
  /** Ends the cached sessions of a user on every replica, after their role or memberships changed. */
  evictUser(userId: string): Promise<void>;
  /** Called after identity's migrations are applied: creates the first admin if needed. */
  afterMigrations(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Users, teams, memberships and sessions, wired together: the routes, the access resolver every route
 * goes through, the identity.* subjects, and the cross-replica session cache.
 */
export async function createIdentityModule(options: IdentityModuleOptions): Promise<IdentityModule> {
  const { bus, logger } = options;
  const now = options.now ?? Date.now;
  const store = createIdentityStore(options.pool);
  const cache = createSessionCache({ ttlMs: options.sessionCacheTtlMs ?? 30000, maxEntries: 50000, now });
  const broadcast = createReplicaBroadcast({
    bus,
    cache,
    logger,
    ...(options.replicaAckTimeoutMs ? { ackTimeoutMs: options.replicaAckTimeoutMs } : {}),
  });
  const authenticate = createSessionAuthenticator({ store, cache, now });
  const limiter = createLoginRateLimiter({
    redis: options.redis,
    keyPrefix: options.redisKeyPrefix,
    logger,
    ...(options.loginRateLimits ? { limits: options.loginRateLimits } : {}),
  });
  const loginGate = createLoginGate(options.settings);
  serveIdentitySubjects(bus, store);
  await broadcast.start();

  const deps = { store, broadcast, logger, now, audit: createIdentityAudit(options.pool) };
  const issueSession = createSessionIssuer({
    store,
    loginGate,
    logger,
    now,
    sessionTtlMs: options.sessionTtlMs ?? 24 * 3600 * 1000,
  });
  const accounts = createAccountStore(options.pool);
  const mail = createMailSender({
    pool: options.pool,
    settings: options.settings,
    logger,
    links: createLinkMaker({ accounts, now }),
    onGivenUp: (mail, error) =>
      recordAudit(options.pool.get(), {
        action: 'mail.failed',
        actor: processActor('gateway-api'),
        target: { kind: 'mail', id: mail.id },
        outcome: 'failure',
        reason: 'given_up',
        details: { kind: mail.kind, attempts: mail.attempts, error: error.slice(0, 300) },
      }),
    ...options.mail,
  });
  serveSatelliteOfflineNotice({ bus, pool: options.pool, store, settings: options.settings, mail, logger });
  const routes = [
    ...authRoutes({ ...deps, limiter, loginGate, issueSession }),
    ...accountRoutes({
      ...deps,
      pool: options.pool,
      accounts,
      settings: options.settings,
      loginGate,
      issueSession,
      mail,
      mailLimiter: createMailRequestLimiter({
        redis: options.redis,
        keyPrefix: options.redisKeyPrefix,
        ...(options.mailRequestLimits ? { limits: options.mailRequestLimits } : {}),
      }),
    }),
    ...userRoutes(deps),
    ...teamRoutes(deps),
  ];

  return {
    routes,
    resolveAccess: createAccessResolver({
      authenticate,
      ...(options.satellite ? { satellite: options.satellite } : {}),
    }),
    replicaId: broadcast.replicaId,
    loginGate,
    issueSession,
    mail,
    getUser: (userId) => store.getUser(userId),
    evictUser: (userId) => broadcast.invalidate({ kind: 'user', user_id: userId }),
    afterMigrations: () => ensureFirstAdmin({ store, admin: options.firstAdmin, logger }),
    async stop() {
      await mail.stop();
      await broadcast.stop();
    },
  };
}
