import { generateIdentityKey, type IdentityKeyConfig } from '@orbital/bus';
import { type ProcessName, processNames } from '@orbital/contracts';

/** Keys of one test run: a key pair per platform process, made once per test file. */
export type TestIdentityKeys = {
  /** For a test's own bus and in-process services: it may speak as any process (and any user or satellite). */
  all: IdentityKeyConfig;
  /** The keys of one process alone, for a bus that must act as exactly that process. */
  of(process: ProcessName): IdentityKeyConfig;
};

let made: TestIdentityKeys | null = null;

export function testIdentityKeys(): TestIdentityKeys {
  if (made) return made;
  const pairs = new Map(processNames.map((process) => [process, generateIdentityKey(process, `${process}-test`)]));
  const publicKeys = [...pairs.values()].map((pair) => pair.publicKey).join(',');
  made = {
    all: { signingKeys: [...pairs.values()].map((pair) => pair.signingKey).join(','), publicKeys },
    of: (process) => ({ signingKeys: pairs.get(process)?.signingKey ?? '', publicKeys }),
  };
  return made;
}

/**
 * A service process started from `services/<process>/...` keeps only its own signing key of the
 * run's keys, as it would have in production (and as its start-up check demands); other processes none.
 */
export function identityEnvForEntry(entry: string, env: Record<string, string>): Record<string, string> {
  const process = processNames.find((name) => entry.startsWith(`services/${name}/`));
  const { IDENTITY_SIGNING_KEY: keys, ...rest } = env;
  // Anything else (the satellite) talks HTTP only and gets no key at all.
  if (!process || !keys) return rest;
  const own = keys.split(',').find((key) => key.startsWith(`${process}:`));
  return own ? { ...rest, IDENTITY_SIGNING_KEY: own } : rest;
}
