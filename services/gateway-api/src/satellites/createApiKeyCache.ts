import type { BlockList } from 'node:net';
import type { CallerIdentity, SatelliteStatus } from '@orbital/contracts';

export type VerifiedKey = {
  satelliteId: string;
  keyId: string;
  /** At verification; `inactive` until the first heartbeat (revoked keys are never cached). */
  status: SatelliteStatus;
  identity: Extract<CallerIdentity, { kind: 'satellite' }>;
  /** Null: any address may use the key. */
  allowlist: BlockList | null;
};

export type ApiKeyCache = {
  get(digest: string): VerifiedKey | undefined;
  set(digest: string, key: VerifiedKey, epochAtStart: number): void;
  /** True when this digest recently failed verification (so a wrong secret does not cost Argon2 again). */
  isRefused(digest: string): boolean;
  refuse(digest: string): void;
  invalidateSatellite(satelliteId: string): void;
  clear(): void;
  /** Bumped by every invalidation: a verification that started before one is not cached. */
  epoch(): number;
  size(): number;
};

/**
 * Verified API keys, by SHA-256 of the whole key (DESIGN.md), so a poll costs a hash and a map lookup
 * instead of an Argon2 run. Entries live `ttlMs`; a revocation or allowlist change removes a
 * satellite's entries at once (the registry broadcasts it to every replica). Failed keys are
 * remembered for `refusedTtlMs`, bounding the Argon2 work an attacker can cause with one bad key.
 * Both maps are bounded; the oldest entries go first.
 */
export function createApiKeyCache(options: {
  ttlMs: number;
  refusedTtlMs: number;
  maxEntries: number;
  now?: () => number;
}): ApiKeyCache {
  const now = options.now ?? Date.now;
  const verified = new Map<string, { key: VerifiedKey; expiresAt: number }>();
  const bySatellite = new Map<string, Set<string>>();
  const refused = new Map<string, number>();
  let epoch = 0;

  const drop = (digest: string) => {
    const entry = verified.get(digest);
    if (!entry) return;
    verified.delete(digest);
    const digests = bySatellite.get(entry.key.satelliteId);
    digests?.delete(digest);
    if (digests?.size === 0) bySatellite.delete(entry.key.satelliteId);
  };

  return {
    get(digest) {
      const entry = verified.get(digest);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        drop(digest);
        return undefined;
      }
      return entry.key;
    },
    set(digest, key, epochAtStart) {
      if (epochAtStart !== epoch) return;
      drop(digest);
      while (verified.size >= options.maxEntries) {
        const oldest = verified.keys().next().value;
        if (oldest === undefined) break;
        drop(oldest);
      }
      verified.set(digest, { key, expiresAt: now() + options.ttlMs });
      let digests = bySatellite.get(key.satelliteId);
      if (!digests) {
        digests = new Set();
        bySatellite.set(key.satelliteId, digests);
      }
      digests.add(digest);
    },
    isRefused(digest) {
      const until = refused.get(digest);
      if (until === undefined) return false;
      if (until <= now()) {
        refused.delete(digest);
        return false;
      }
      return true;
    },
    refuse(digest) {
      refused.delete(digest);
      while (refused.size >= options.maxEntries) {
        const oldest = refused.keys().next().value;
        if (oldest === undefined) break;
        refused.delete(oldest);
      }
      refused.set(digest, now() + options.refusedTtlMs);
    },
    invalidateSatellite(satelliteId) {
      epoch += 1;
      for (const digest of [...(bySatellite.get(satelliteId) ?? [])]) drop(digest);
    },
    clear() {
      epoch += 1;
      verified.clear();
      bySatellite.clear();
      refused.clear();
    },
    epoch: () => epoch,
    size: () => verified.size,
  };
}
