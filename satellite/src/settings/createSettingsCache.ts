import { createHash } from 'node:crypto';
import type { SatelliteGlobalSettings } from '@orbital/contracts';
import { canonicalJson } from '../runtime/canonicalJson.ts';

/**
 * Where the settings held came from: the satellite's defaults (the global settings' defaults, or
 * SATELLITE_ENABLE_DOCS), a standalone configuration file, or the backend's last configuration.
 */
export type SettingsSource = 'defaults' | 'file' | 'backend';

export type SettingsSnapshot = {
  settings: SatelliteGlobalSettings;
  source: SettingsSource;
  /** SHA-256 over canonical JSON, first 12 hex characters, as the configuration hash. */
  hash: string;
  /** When the settings last changed; null while the first ones are still held. */
  updated_at: string | null;
};

export function settingsHash(settings: SatelliteGlobalSettings): string {
  return createHash('sha256').update(canonicalJson(settings)).digest('hex').slice(0, 12);
}

/**
 * The satellite's settings cache: `GET /` is served from it, and `/documentation` follows
 * `global.enable_swagger_docs`. Satellites have no settings access of their
 * own: the configuration sync fills it from the settings the backend sends with each configuration,
 * and the routes read it on every request, so a change applies without a restart.
 */
export function createSettingsCache(options: {
  initial: SatelliteGlobalSettings;
  source: SettingsSource;
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  let snapshot: SettingsSnapshot = {
    settings: { ...options.initial },
    source: options.source,
    hash: settingsHash(options.initial),
    updated_at: null,
  };
  return {
    current: (): SettingsSnapshot => snapshot,
    settings: (): SatelliteGlobalSettings => snapshot.settings,
    /** Stores what arrived; returns whether any value changed (the source alone is not a change). */
    update(settings: SatelliteGlobalSettings, source: SettingsSource): boolean {
      const hash = settingsHash(settings);
      const changed = hash !== snapshot.hash;
      snapshot = {
        settings: { ...settings },
        source,
        hash,
        updated_at: changed ? new Date(now()).toISOString() : snapshot.updated_at,
      };
      return changed;
    },
  };
}

export type SettingsCache = ReturnType<typeof createSettingsCache>;
