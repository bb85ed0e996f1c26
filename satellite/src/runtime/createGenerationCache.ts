import type { GenerationVerdict } from './createUpstreamClient.ts';

/** One installation's protocol generation, as its first connection settled it. */
export type InstallationGeneration = {
  /** The verdict to connect with, or undefined to probe (`server/discover`, then `initialize`). */
  get(): GenerationVerdict | undefined;
  set(verdict: GenerationVerdict): void;
  /** A connection with this verdict failed: the next one probes again. */
  forget(): void;
};

/**
 * Each installation is probed once for its generation (2026-07-28 or a 2025 revision) and the answer is
 * reused for every later connection: restarts after a crash, respawns from dormant, reconnections of a
 * remote server. It is keyed by what the installation runs (command or URL and its settings), so a
 * changed configuration or a restart command probes again, and a connection that fails with a verdict
 * forgets it: an upgraded server is found out at its next connection instead of being held to an old
 * answer.
 */
export function createGenerationCache() {
  const verdicts = new Map<string, { fingerprint: string; verdict: GenerationVerdict }>();
  return {
    of(installationId: string, fingerprint: string): InstallationGeneration {
      return {
        get() {
          const held = verdicts.get(installationId);
          return held?.fingerprint === fingerprint ? held.verdict : undefined;
        },
        set(verdict) {
          verdicts.set(installationId, { fingerprint, verdict });
        },
        forget() {
          if (verdicts.get(installationId)?.fingerprint === fingerprint) verdicts.delete(installationId);
        },
      };
    },
    /** An operator restarted the installation: its next connection probes again. */
    forget(installationId: string) {
      verdicts.delete(installationId);
    },
    /** Only installations still configured keep a verdict. */
    retain(installationIds: Iterable<string>) {
      const keep = new Set(installationIds);
      for (const id of verdicts.keys()) if (!keep.has(id)) verdicts.delete(id);
    },
  };
}
