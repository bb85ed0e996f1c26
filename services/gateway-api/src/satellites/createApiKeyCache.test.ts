import { describe, expect, it } from 'vitest';
import { createApiKeyCache, type VerifiedKey } from './createApiKeyCache.ts';

const key = (satelliteId: string): VerifiedKey => ({
  satelliteId,
  keyId: `key-${satelliteId}`,
  status: 'active',
  identity: { kind: 'satellite', satelliteId, satelliteType: 'global', teamId: null },
  allowlist: null,
});

function cache(maxEntries = 10) {
  let time = 0;
  const c = createApiKeyCache({ ttlMs: 1000, refusedTtlMs: 100, maxEntries, now: () => time });
  return { c, advance: (ms: number) => (time += ms) };
}

describe('api key cache', () => {
  it('serves a verified key until its time to live runs out', () => {
    const { c, advance } = cache();
    c.set('d1', key('s1'), c.epoch());
    advance(999);
    expect(c.get('d1')?.satelliteId).toBe('s1');
    advance(1);
    expect(c.get('d1')).toBeUndefined();
  });

  it("drops every key of a satellite on invalidation, and only that satellite's", () => {
    const { c } = cache();
    c.set('d1', key('s1'), c.epoch());
    c.set('d2', key('s1'), c.epoch());
    c.set('d3', key('s2'), c.epoch());
    c.invalidateSatellite('s1');
    expect([c.get('d1'), c.get('d2')]).toEqual([undefined, undefined]);
    expect(c.get('d3')?.satelliteId).toBe('s2');
  });

  it('does not cache a verification that started before an invalidation', () => {
    const { c } = cache();
    const started = c.epoch();
    c.invalidateSatellite('s1');
    c.set('d1', key('s1'), started);
    expect(c.get('d1')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const { c } = cache(2);
    c.set('d1', key('s1'), c.epoch());
    c.set('d2', key('s2'), c.epoch());
    c.set('d3', key('s3'), c.epoch());
    expect(c.size()).toBe(2);
    expect(c.get('d1')).toBeUndefined();
    expect(c.get('d3')?.satelliteId).toBe('s3');
  });

  it('remembers refused keys for a short time', () => {
    const { c, advance } = cache();
    c.refuse('bad');
    expect(c.isRefused('bad')).toBe(true);
    advance(100);
    expect(c.isRefused('bad')).toBe(false);
  });
});
