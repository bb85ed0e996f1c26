import { describe, expect, it } from 'vitest';
import { isSatelliteOnline, offlineAfterMs } from './isSatelliteOnline.ts';

const at = Date.parse('2026-05-01T12:00:00Z');
const after = (ms: number) => new Date(at + ms);

describe('isSatelliteOnline', () => {
  it('stays online through one late heartbeat and goes offline within 90 s of the last one', () => {
    const satellite = { status: 'active', last_heartbeat_at: at };
    expect(isSatelliteOnline(satellite, after(45_000), 30_000)).toBe(true);
    expect(isSatelliteOnline(satellite, after(75_000), 30_000)).toBe(true);
    expect(isSatelliteOnline(satellite, after(75_001), 30_000)).toBe(false);
    expect(offlineAfterMs(30_000)).toBeLessThan(90_000);
  });

  it('is never online while inactive, revoked or without a heartbeat', () => {
    expect(isSatelliteOnline({ status: 'inactive', last_heartbeat_at: at }, after(1), 30_000)).toBe(false);
    expect(isSatelliteOnline({ status: 'revoked', last_heartbeat_at: at }, after(1), 30_000)).toBe(false);
    expect(isSatelliteOnline({ status: 'active', last_heartbeat_at: null }, after(1), 30_000)).toBe(false);
  });
});
