import { describe, expect, it } from 'vitest';
import { createApiKeyCache, type VerifiedKey } from './createApiKeyCache.ts';

const key = (satelliteId: string, keyId = `sk_${satelliteId}`): VerifiedKey => ({
  satelliteId,
  keyId,
  status: 'active',
  identity: { kind: 'satellite', satellite_id: satelliteId, satellite_type: 'global', team_id: null },
  allowlist: null,
});

function cache(maxEntries = 10) {
  let time = 0;
  const c = createApiKeyCache({
    confirmAfterMs: 1000,
    retryConfirmAfterMs: 200,
    refusedTtlMs: 100,
    maxEntries,
    now: () => time,
  });
  return { c, advance: (ms: number) => (time += ms) };
}

describe('api key cache', () => {
  it('knows a verified key by its id and its secret only', () => {
    const { c } = cache();
    c.set(key('s1'), 'hash-1', 'secret-1', c.epoch());
    expect(c.match('sk_s1', 'secret-1')).toMatchObject({ key: { satelliteId: 's1' }, hash: 'hash-1', stale: false });
    expect(c.match('sk_s1', 'secret-2')).toBeUndefined();
    expect(c.match('sk_s2', 'secret-1')).toBeUndefined();
  });

  it('keeps serving a key after its confirmation is due, and says it is stale until confirmed', () => {
    const { c, advance } = cache();
    c.set(key('s1'), 'hash-1', 'secret-1', c.epoch());
    advance(999);
    expect(c.match('sk_s1', 'secret-1')?.stale).toBe(false);
    advance(1);
    expect(c.match('sk_s1', 'secret-1')?.stale).toBe(true);
    c.confirm('sk_s1', { status: 'active', allowlist: null }, c.epoch());
    expect(c.match('sk_s1', 'secret-1')?.stale).toBe(false);
  });

  it('takes over the status a confirmation read', () => {
    const { c } = cache();
    c.set({ ...key('s1'), status: 'inactive' }, 'hash-1', 'secret-1', c.epoch());
    c.confirm('sk_s1', { status: 'active', allowlist: null }, c.epoch());
    expect(c.match('sk_s1', 'secret-1')?.key.status).toBe('active');
  });

  it('waits a short while after a confirmation that could not be had', () => {
    const { c, advance } = cache();
    c.set(key('s1'), 'hash-1', 'secret-1', c.epoch());
    advance(1000);
    c.postpone('sk_s1');
    expect(c.match('sk_s1', 'secret-1')?.stale).toBe(false);
    advance(200);
    expect(c.match('sk_s1', 'secret-1')?.stale).toBe(true);
  });

  it("drops every key of a satellite on invalidation, and only that satellite's", () => {
    const { c } = cache();
    c.set(key('s1', 'sk_a'), 'h', 'secret-a', c.epoch());
    c.set(key('s1', 'sk_b'), 'h', 'secret-b', c.epoch());
    c.set(key('s2', 'sk_c'), 'h', 'secret-c', c.epoch());
    c.invalidateSatellite('s1');
    expect([c.match('sk_a', 'secret-a'), c.match('sk_b', 'secret-b')]).toEqual([undefined, undefined]);
    expect(c.match('sk_c', 'secret-c')?.key.satelliteId).toBe('s2');
  });

  it('does not keep a verification or a confirmation that started before an invalidation', () => {
    const { c, advance } = cache();
    const started = c.epoch();
    c.invalidateSatellite('s1');
    c.set(key('s1'), 'h', 'secret-1', started);
    expect(c.match('sk_s1', 'secret-1')).toBeUndefined();

    c.set(key('s2'), 'h', 'secret-2', c.epoch());
    advance(1000);
    const confirming = c.epoch();
    c.markAllStale();
    c.confirm('sk_s2', { status: 'active', allowlist: null }, confirming);
    expect(c.match('sk_s2', 'secret-2')?.stale).toBe(true);
  });

  it('makes every key stale after a reconnect, keeping them', () => {
    const { c } = cache();
    c.set(key('s1'), 'h', 'secret-1', c.epoch());
    c.markAllStale();
    expect(c.match('sk_s1', 'secret-1')).toMatchObject({ stale: true });
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const { c } = cache(2);
    c.set(key('s1'), 'h', 'secret-1', c.epoch());
    c.set(key('s2'), 'h', 'secret-2', c.epoch());
    c.set(key('s3'), 'h', 'secret-3', c.epoch());
    expect(c.size()).toBe(2);
    expect(c.match('sk_s1', 'secret-1')).toBeUndefined();
    expect(c.match('sk_s3', 'secret-3')?.key.satelliteId).toBe('s3');
  });

  it('remembers refused keys for a short time', () => {
    const { c, advance } = cache();
    c.refuse('sk_x.bad');
    expect(c.isRefused('sk_x.bad')).toBe(true);
    expect(c.isRefused('sk_x.other')).toBe(false);
    advance(100);
    expect(c.isRefused('sk_x.bad')).toBe(false);
  });
});
