import type { CallerIdentity, SessionInvalidation } from '@orbital/contracts';
import type { MembershipRow } from './identityStore.ts';

export type AuthenticatedSession = {
  sessionId: string;
  expiresAt: number;
  user: { id: string; email: string; name: string; globalRole: 'global_admin' | 'global_user' };
  memberships: MembershipRow[];
  identity: Extract<CallerIdentity, { kind: 'user' }>;
};

export type SessionCacheOptions = {
  /** How long a validated session is trusted without asking PostgreSQL; a backstop, not the revocation path. */
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
};

/**
 * Validated sessions by token hash, so a request costs no database round trip. Revocation does not
 * wait for the TTL: logout and revocation evict entries on every replica (createReplicaBroadcast).
 *
 * Two races are closed here. A lookup that started before an eviction must not put the revoked session
 * back: every eviction bumps `generation`, and `set` ignores a lookup made under an older generation.
 * A replica cut off from NATS could miss evictions: while disconnected the cache is disabled, and it is
 * emptied on reconnect.
 */
export function createSessionCache(options: SessionCacheOptions) {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { session: AuthenticatedSession; cachedAt: number }>();
  let generation = 0;
  let enabled = true;

  const evictWhere = (match: (session: AuthenticatedSession) => boolean) => {
    generation += 1;
    for (const [key, entry] of entries) if (match(entry.session)) entries.delete(key);
  };

  return {
    generation: () => generation,
    get(key: string): AuthenticatedSession | undefined {
      if (!enabled) return undefined;
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (now() - entry.cachedAt >= options.ttlMs || now() >= entry.session.expiresAt) {
        entries.delete(key);
        return undefined;
      }
      return entry.session;
    },
    set(key: string, session: AuthenticatedSession, lookedUpAtGeneration: number): void {
      if (!enabled || lookedUpAtGeneration !== generation) return;
      // Map keeps insertion order: the first key is the oldest entry.
      if (entries.size >= options.maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(key, { session, cachedAt: now() });
    },
    evict(invalidation: SessionInvalidation): void {
      if (invalidation.kind === 'session') evictWhere((s) => s.sessionId === invalidation.session_id);
      else evictWhere((s) => s.user.id === invalidation.user_id);
    },
    clear(): void {
      generation += 1;
      entries.clear();
    },
    setEnabled(value: boolean): void {
      enabled = value;
      this.clear();
    },
    size: () => entries.size,
  };
}

export type SessionCache = ReturnType<typeof createSessionCache>;
