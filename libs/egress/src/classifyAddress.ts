import { BlockList, isIP } from 'node:net';

/**
 * What an IP address is, for deciding whether the platform may open a connection to it on someone
 * else's say-so (a URL a client or an administrator typed). `metadata` is the cloud instance metadata
 * services, which hand out the machine's credentials to anyone who can reach them.
 */
export type AddressClass =
  | 'public'
  | 'metadata'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'multicast'
  | 'reserved'
  | 'unspecified';

type Range = readonly [cidr: string, addressClass: Exclude<AddressClass, 'public'>];

/** Instance metadata endpoints of the clouds (AWS, ECS, GCP, Azure, Alibaba, Oracle...). */
const metadataAddresses = ['169.254.169.254', '169.254.170.2', '169.254.170.23', 'fd00:ec2::254', '100.100.100.200'];

/** Special-purpose ranges (IANA IPv4 and IPv6 special-purpose address registries). */
const ranges: readonly Range[] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['100::/64', 'reserved'],
  ['2001::/23', 'reserved'],
  ['2001:db8::/32', 'reserved'],
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
];

const lists = new Map<Exclude<AddressClass, 'public'>, BlockList>();
for (const [cidr, addressClass] of ranges) {
  const [network, prefix] = cidr.split('/') as [string, string];
  const family = network.includes(':') ? 'ipv6' : 'ipv4';
  let list = lists.get(addressClass);
  if (!list) {
    list = new BlockList();
    lists.set(addressClass, list);
  }
  list.addSubnet(network, Number(prefix), family);
}
const metadata = new BlockList();
for (const address of metadataAddresses) metadata.addAddress(address, address.includes(':') ? 'ipv6' : 'ipv4');

/**
 * The IPv4 address an IPv6 address stands for, when it embeds one: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16). A connection to these
 * reaches that IPv4 host, so they are judged as it is.
 */
function embeddedIpv4(ip: string): string | null {
  const groups = expandIpv6(ip);
  if (!groups) return null;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0) && !(groups[5] === 0 && zeros(6, 7))) {
    return v4(groups[6] as number, groups[7] as number);
  }
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6] as number, groups[7] as number);
  if (groups[0] === 0x2002) return v4(groups[1] as number, groups[2] as number);
  return null;
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included), or null. */
function expandIpv6(ip: string): number[] | null {
  let text = ip.split('%')[0] as string;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const octets = (dotted[1] as string).split('.').map(Number);
    const tail = `${(((octets[0] as number) << 8) | (octets[1] as number)).toString(16)}:${(((octets[2] as number) << 8) | (octets[3] as number)).toString(16)}`;
    text = text.slice(0, dotted.index) + tail;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const missing = 8 - left.length - right.length;
  if (rest === undefined ? missing !== 0 : missing < 0) return null;
  const groups = [...left, ...Array<number>(Math.max(missing, 0)).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** Classifies an IP address (IPv4 or IPv6 text); anything that is not an IP address is `reserved`. */
export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip.split('%')[0] as string);
  if (family === 0) return 'reserved';
  if (family === 6) {
    const v4 = embeddedIpv4(ip);
    if (v4 !== null) return classifyAddress(v4);
  }
  const address = ip.split('%')[0] as string;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (metadata.check(address, type)) return 'metadata';
  for (const [addressClass, list] of lists) if (list.check(address, type)) return addressClass;
  return 'public';
}
