import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** A BlockList of the allowlist's addresses and CIDR blocks; null for an empty list (any address). */
export function buildAllowlist(entries: readonly string[]): BlockList | null {
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/** IPv4 clients reach a dual-stack server as `::ffff:a.b.c.d`; an IPv4 allowlist must still match them. */
export function isAllowedAddress(list: BlockList | null, ip: string): boolean {
  if (list === null) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped) return list.check(mapped, 'ipv4') || list.check(ip, 'ipv6');
  if (isIPv4(ip)) return list.check(ip, 'ipv4');
  return isIPv6(ip) && list.check(ip, 'ipv6');
}
