import type { Bus } from '@orbital/bus';
import { type CallerIdentity, settingsSubjects } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import {
  groupValues,
  parseArray,
  parseBoolean,
  parseEmail,
  parseInteger,
  parseJson,
  parseNumber,
  parseUrl,
  requireValue,
} from './typedValues.ts';

/** Where raw values come from: the settings service's cache, or the service over NATS. */
export type SettingsSource = {
  get(key: string): Promise<string | undefined>;
  group(groupId: string): Promise<Record<string, string>>;
};

export type SettingsReader = ReturnType<typeof createSettingsReader>;

export function createSettingsReader(source: SettingsSource) {
  const typed =
    <T>(parse: (key: string, raw: string) => T) =>
    async (key: string, fallback?: T): Promise<T | undefined> => {
      const raw = await source.get(key);
      if (raw === undefined || raw.trim() === '') return fallback;
      return parse(key, raw);
    };
  return {
    string: async (key: string, fallback?: string) => (await source.get(key)) ?? fallback,
    required: async (key: string) => requireValue(key, await source.get(key)),
    boolean: typed(parseBoolean),
    number: typed(parseNumber),
    integer: typed(parseInteger),
    url: typed(parseUrl),
    email: typed(parseEmail),
    json: typed(parseJson),
    array: typed(parseArray),
    group: async (groupId: string, options: { withPrefix: boolean } = { withPrefix: false }) =>
      groupValues(await source.group(groupId), options),
  };
}

/** A source that asks the settings service; it answers only platform services (plaintext values). */
export function createNatsSettingsSource(bus: Bus, identity: CallerIdentity): SettingsSource {
  return {
    async get(key) {
      const reply = await bus.request(settingsSubjects.getValues, { keys: [key] }, { identity });
      // Not "missing": the setting exists but its stored value fails authentication, and a reader
      // must not fall back to a default as if nobody had set it.
      if (reply.unreadable.includes(key)) {
        throw new AppError('internal', `Setting ${key} cannot be decrypted; set it again`, { details: { key } });
      }
      return reply.values[key];
    },
    async group(groupId) {
      return (await bus.request(settingsSubjects.getValues, { group_id: groupId }, { identity })).values;
    },
  };
}
