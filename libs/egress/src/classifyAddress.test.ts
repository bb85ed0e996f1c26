import { describe, expect, it } from 'vitest';
import { classifyAddress } from './classifyAddress.ts';
import { createAddressPolicy, networkProblem, nonPublicAddresses } from './createAddressPolicy.ts';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['100.64.0.1', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['not an address', 'reserved'],
  ])('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  it('judges an IPv6 address that reaches an IPv4 host as that host', () => {
    expect(classifyAddress('::ffff:169.254.169.254')).toBe('metadata');
    expect(classifyAddress('::ffff:a9fe:a9fe')).toBe('metadata');
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('64:ff9b::a9fe:a9fe')).toBe('metadata');
    expect(classifyAddress('2002:a00:1::')).toBe('private');
    expect(classifyAddress('::ffff:8.8.8.8')).toBe('public');
  });
});

describe('createAddressPolicy', () => {
  it('refuses the classes it is given and names the kind of address, not more', () => {
    const policy = createAddressPolicy({ refuse: ['metadata', 'link-local'] });
    expect(policy.problem('169.254.169.254')).toBe('169.254.169.254 is a cloud metadata address');
    expect(policy.problem('fe80::1')).toBe('fe80::1 is a link-local address');
    expect(policy.problem('10.0.0.1')).toBeNull();
    expect(policy.problem('8.8.8.8')).toBeNull();
  });

  it("lets an operator's networks through, and only them", () => {
    const policy = createAddressPolicy({ refuse: nonPublicAddresses, allowNetworks: ['10.20.0.0/16', '127.0.0.1'] });
    expect(policy.problem('10.20.3.4')).toBeNull();
    expect(policy.problem('::ffff:10.20.3.4')).toBeNull();
    expect(policy.problem('127.0.0.1')).toBeNull();
    expect(policy.problem('127.0.0.2')).toBe('127.0.0.2 is a loopback address');
    expect(policy.problem('10.21.0.1')).toBe('10.21.0.1 is a private network address');
  });

  it('refuses a malformed network at construction, naming it', () => {
    expect(networkProblem('10.0.0.0/33')).toBe('has an invalid prefix length');
    expect(networkProblem('example.com')).toBe('is not an IP address or CIDR block');
    expect(networkProblem('fd00::/8')).toBeNull();
    expect(() => createAddressPolicy({ refuse: [], allowNetworks: ['10.0.0.0/x'] })).toThrow(/10\.0\.0\.0\/x/);
  });
});
