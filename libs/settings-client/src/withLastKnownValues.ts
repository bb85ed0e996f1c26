import { isAppError } from '@orbital/errors';
import type { SettingsSource } from './createSettingsReader.ts';

/** The value `load` answers, remembered; while the source is unavailable, the value it last answered for `key`. */
async function lastKnown<T>(remembered: Map<string, T>, key: string, load: () => Promise<T>): Promise<T> {
  try {
    const value = await load();
    remembered.set(key, value);
    return value;
  } catch (error) {
    if (isAppError(error) && error.code === 'unavailable' && remembered.has(key)) return remembered.get(key) as T;
    throw error;
  }
}

/**
 * A source that reads through on every call, so a change is seen at once, and answers with the last
 * value it read when the settings service is unreachable (`unavailable`), so a switch such as
 * `global.enable_login` keeps its last state through a settings outage instead of failing every login.
 * A value never read before still fails: nothing is guessed.
 */
export function withLastKnownValues(source: SettingsSource): SettingsSource {
  const known = new Map<string, string | undefined>();
  const knownGroups = new Map<string, Record<string, string>>();
  return {
    get: (key) => lastKnown(known, key, () => source.get(key)),
    group: (groupId) => lastKnown(knownGroups, groupId, () => source.group(groupId)),
  };
}
