import { describe, expect, it } from 'vitest';
import { type AuthenticatedSession, createSessionCache } from './createSessionCache.ts';

const session = (sessionId: string, userId: string, expiresAt = 10_000): AuthenticatedSession => ({
  sessionId,
  expiresAt,
  user: { id: userId, email: `${userId}@x.test`, name: userId, globalRole: 'global_user' },
  memberships: [],
  identity: { kind: 'user', user_id: userId, global_role: 'global_user', memberships: [] },
});

describe('createSessionCache', () => {
  it('serves an entry until its TTL or the session expiry, whichever comes first', () => {
    let now = 0;
    const cache = createSessionCache({ ttlMs: 1000, maxEntries: 10, now: () => now });
    cache.set('k', session('s', 'u', 1500), cache.generation());
    now = 999;
    expect(cache.get('k')?.sessionId).toBe('s');
    now = 1000;
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', session('s', 'u', 1500), cache.generation());
    now = 1500;
    expect(cache.get('k')).toBeUndefined();
  });

  it('does not let a lookup that started before an eviction put the evicted session back', () => {
    const cache = createSessionCache({ ttlMs: 1000, maxEntries: 10, now: () => 0 });
    const before = cache.generation();
    cache.evict({ kind: 'session', session_id: 's' });
    cache.set('k', session('s', 'u'), before);
    expect(cache.get('k')).toBeUndefined();
  });

  it('evicts by session and by user, and stays off while disabled', () => {
    const cache = createSessionCache({ ttlMs: 1000, maxEntries: 10, now: () => 0 });
    cache.set('a', session('s1', 'u1'), cache.generation());
    cache.set('b', session('s2', 'u1'), cache.generation());
    cache.set('c', session('s3', 'u2'), cache.generation());
    cache.evict({ kind: 'session', session_id: 's1' });
    expect([cache.get('a'), cache.get('b')?.sessionId]).toEqual([undefined, 's2']);
    cache.evict({ kind: 'user', user_id: 'u1' });
    expect([cache.get('b'), cache.get('c')?.sessionId]).toEqual([undefined, 's3']);
    cache.setEnabled(false);
    expect(cache.get('c')).toBeUndefined();
    cache.set('c', session('s3', 'u2'), cache.generation());
    cache.setEnabled(true);
    expect(cache.get('c')).toBeUndefined();
  });

  it('drops the oldest entry when full', () => {
    const cache = createSessionCache({ ttlMs: 1000, maxEntries: 2, now: () => 0 });
    for (const key of ['a', 'b', 'c']) cache.set(key, session(key, key), cache.generation());
    expect([cache.get('a'), cache.get('b')?.sessionId, cache.get('c')?.sessionId]).toEqual([undefined, 'b', 'c']);
  });
});
