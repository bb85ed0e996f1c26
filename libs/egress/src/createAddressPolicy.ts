import { BlockList, isIP } from 'node:net';
import { type AddressClass, classifyAddress } from './classifyAddress.ts';

export type AddressPolicy = {
  /** Why the platform must not connect to this address, or null when it may. */
  problem(ip: string): string | null;
  /** Whether cloud metadata addresses (and so their host names) are refused. */
  refusesMetadata: boolean;
};

export type AddressPolicyOptions = {
  /** The classes of address refused. */
  refuse: readonly AddressClass[];
  /**
   * Networks an operator allows even though their class is refused (CIDR blocks or single addresses),
   * for example the company network where its own services live.
   */
  allowNetworks?: readonly string[];
};

/** Why a network an operator wrote cannot be used, or null: for configuration checks at start. */
export function networkProblem(entry: string): string | null {
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return 'is not an IP address or CIDR block';
  if (prefix === undefined) return null;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128) ? null : 'has an invalid prefix length';
}

/** The words an operator reads in an error: what kind of address was refused. */
const described: Record<AddressClass, string> = {
  public: 'a public address',
  metadata: 'a cloud metadata address',
  loopback: 'a loopback address',
  private: 'a private network address',
  'link-local': 'a link-local address',
  shared: 'a shared (carrier-grade NAT) address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  unspecified: 'an unspecified address',
};

/**
 * Decides which addresses a URL from outside may make the platform connect to, so a URL cannot turn
 * the platform into a proxy into its own network or its cloud's credentials (server-side request
 * forgery). The decision is made on the address actually connected to, never on the host name.
 */
export function createAddressPolicy(options: AddressPolicyOptions): AddressPolicy {
  const refused = new Set(options.refuse);
  const allowed = new BlockList();
  for (const entry of options.allowNetworks ?? []) {
    const problem = networkProblem(entry);
    if (problem) throw new Error(`allowed network ${JSON.stringify(entry)} ${problem}`);
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) allowed.addAddress(address, family);
    else allowed.addSubnet(address, Number(prefix), family);
  }
  return {
    refusesMetadata: refused.has('metadata'),
    problem(ip) {
      const addressClass = classifyAddress(ip);
      if (!refused.has(addressClass)) return null;
      const address = ip.split('%')[0] as string;
      const family = isIP(address);
      if (family !== 0 && allowed.check(address, family === 4 ? 'ipv4' : 'ipv6')) return null;
      return `${address} is ${described[addressClass]}`;
    },
  };
}

/** Every class but `public`: for URLs that should only ever point at the public internet. */
export const nonPublicAddresses: readonly AddressClass[] = [
  'metadata',
  'loopback',
  'private',
  'link-local',
  'shared',
  'multicast',
  'reserved',
  'unspecified',
];
