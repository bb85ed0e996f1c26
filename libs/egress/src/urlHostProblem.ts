import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { AddressPolicy } from './createAddressPolicy.ts';

/** Names the clouds give their instance metadata services, refused like the metadata addresses. */
const metadataHostNames = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

/**
 * Why a URL someone stores (for the platform or its satellites to connect to later) points where the
 * policy refuses, or null. An address is judged as it is; a name by what it resolves to here, when it
 * resolves within the time given. A name that does not resolve here is not refused: it may live in the
 * network of the satellite that will use it, which must guard its own connections.
 */
export async function urlHostProblem(
  url: URL,
  policy: AddressPolicy,
  options: { lookupTimeoutMs?: number } = {},
): Promise<string | null> {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(host) !== 0) return policy.problem(host);
  const name = host.replace(/\.$/, '');
  if (policy.refusesMetadata && metadataHostNames.has(name)) return `${name} is a cloud metadata host name`;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), options.lookupTimeoutMs ?? 2000);
  });
  try {
    const addresses = await Promise.race([lookup(name, { all: true }).catch(() => null), timeout]);
    for (const { address } of addresses ?? []) {
      const problem = policy.problem(address);
      if (problem) return `${name} resolves to ${problem}`;
    }
    return null;
  } finally {
    clearTimeout(timer);
  }
}
