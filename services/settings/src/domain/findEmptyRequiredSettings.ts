import { parseBoolean } from '@orbital/settings-client';
import type { SettingDefinition } from '../definitions/settingDefinition.ts';

type Definition = Pick<SettingDefinition, 'key' | 'type' | 'required' | 'onlyWhen'>;

/**
 * The required settings that are empty and matter under the current values: a setting that applies
 * only while another is on (`smtp.host` while `global.send_mail` is true, `smtp.password` while
 * `smtp.username` is set) is not reported while that one is off, so start-up never asks for a mail
 * server when nobody sends mail. A condition is on when it is a boolean setting holding a true word,
 * or any other setting holding text, and it matters itself (conditions chain).
 */
export function findEmptyRequiredSettings(
  definitions: readonly Definition[],
  values: ReadonlyMap<string, string>,
): string[] {
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const isOn = (key: string): boolean => {
    const value = values.get(key)?.trim() ?? '';
    if (value === '') return false;
    if (byKey.get(key)?.type !== 'boolean') return true;
    try {
      return parseBoolean(key, value);
    } catch {
      return false;
    }
  };
  const matters = (definition: Definition, seen: ReadonlySet<string>): boolean => {
    if (!definition.onlyWhen) return true;
    const condition = byKey.get(definition.onlyWhen);
    // A condition nobody defines, or a loop of conditions, leaves the setting counted as mattering.
    if (!condition || seen.has(condition.key)) return true;
    return isOn(condition.key) && matters(condition, new Set([...seen, definition.key]));
  };
  return definitions
    .filter((d) => d.required && (values.get(d.key)?.trim() ?? '') === '' && matters(d, new Set([d.key])))
    .map((d) => d.key);
}
