import type { AuthenticatedSession, SessionCache } from './createSessionCache.ts';
import type { IdentityStore, StoredSession } from './identityStore.ts';
import { hashSessionToken, isWellFormedSessionToken } from './sessionToken.ts';

export function toAuthenticatedSession(stored: StoredSession): AuthenticatedSession {
  return {
    sessionId: stored.sessionId,
    expiresAt: stored.expiresAt,
    user: stored.user,
    memberships: stored.memberships,
    identity: {
      kind: 'user',
      user_id: stored.user.id,
      global_role: stored.user.globalRole,
      memberships: stored.memberships.map((m) => ({ team_id: m.team_id, role: m.role })),
    },
  };
}

/**
 * Turns a session token into the session it names, or null when the token is unknown, revoked or
 * expired. Served from the cache when possible; one PostgreSQL lookup otherwise.
 */
export function createSessionAuthenticator(deps: { store: IdentityStore; cache: SessionCache; now?: () => number }) {
  const now = deps.now ?? Date.now;
  return async function authenticate(token: string): Promise<AuthenticatedSession | null> {
    if (!isWellFormedSessionToken(token)) return null;
    const hash = hashSessionToken(token);
    const key = hash.toString('hex');
    const cached = deps.cache.get(key);
    if (cached) return cached;
    const generation = deps.cache.generation();
    const stored = await deps.store.findSession(hash);
    if (!stored || stored.revokedAt !== null || stored.expiresAt <= now()) return null;
    const session = toAuthenticatedSession(stored);
    deps.cache.set(key, session, generation);
    return session;
  };
}

export type SessionAuthenticator = ReturnType<typeof createSessionAuthenticator>;
