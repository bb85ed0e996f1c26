import { describe, expect, it } from 'vitest';
import { buildAllowlist, isAllowedAddress } from './isAllowedAddress.ts';

describe('isAllowedAddress', () => {
  it('admits any address when the list is empty', () => {
    expect(isAllowedAddress(buildAllowlist([]), '203.0.113.9')).toBe(true);
  });

  it('matches single addresses and CIDR blocks of both families', () => {
    const list = buildAllowlist(['10.0.0.0/8', '192.168.1.5', '2001:db8::/32']);
    expect(isAllowedAddress(list, '10.20.30.40')).toBe(true);
    expect(isAllowedAddress(list, '192.168.1.5')).toBe(true);
    expect(isAllowedAddress(list, '192.168.1.6')).toBe(false);
    expect(isAllowedAddress(list, '2001:db8::1')).toBe(true);
    expect(isAllowedAddress(list, '2001:db9::1')).toBe(false);
  });

  it('matches IPv4-mapped IPv6 clients against IPv4 entries', () => {
    const list = buildAllowlist(['127.0.0.1']);
    expect(isAllowedAddress(list, '::ffff:127.0.0.1')).toBe(true);
    expect(isAllowedAddress(list, '::ffff:127.0.0.2')).toBe(false);
  });

  it('refuses what is not an address', () => {
    expect(isAllowedAddress(buildAllowlist(['10.0.0.0/8']), 'unknown')).toBe(false);
  });
});
