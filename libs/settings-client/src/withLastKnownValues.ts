import { isAppError } from '@orbital/errors';
import type { SettingsSource } from './createSettingsReader.ts';

/**
 * A source that reads through on every call, so a change is seen at once, and answers with the last
 * value it read when the settings service is unreachable (`unavailable`), so a switch such as
 * `global.enable_login` keeps its last state through a settings outage instead of failing every login.
 * A value never read before still fails: nothing is guessed.
 */
export function withLastKnownValues(source: SettingsSource): SettingsSource {
  const known = new Map<string, string | undefined>();
  const knownGroups = new Map<string, Record<string, string>>();
  const unavailable = (error: unknown) => isAppError(error) && error.code === 'unavailable';
  return {
    async get(key) {
      try {
        const value = await source.get(key);
        known.set(key, value);
        return value;
      } catch (error) {
        if (unavailable(error) && known.has(key)) return known.get(key);
        throw error;
      }
    },
    async group(groupId) {
      try {
        const values = await source.group(groupId);
        knownGroups.set(groupId, values);
        return values;
      } catch (error) {
        const last = knownGroups.get(groupId);
        if (unavailable(error) && last) return last;
        throw error;
      }
    },
  };
}
