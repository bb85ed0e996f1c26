import { parseBoolean, parseNumber } from '@orbital/settings-client';
import type { SettingDefinition } from '../definitions/settingDefinition.ts';

/**
 * Whether a value fits its setting's definition: a number setting holds a number, a boolean one a word
 * the typed reads accept (true/false, yes/no, on/off, 1/0, enabled/disabled), a required one is not
 * empty. Checked on every write, so a typo is refused at the field instead of failing a reader later.
 * Returns the problem in words (never quoting the value, which may be a secret), or null.
 */
export function checkDefinedValue(
  definition: Pick<SettingDefinition, 'type' | 'required'>,
  value: string,
): string | null {
  if (value.trim() === '') return definition.required ? 'is required' : null;
  try {
    if (definition.type === 'number') parseNumber('', value);
    if (definition.type === 'boolean') parseBoolean('', value);
  } catch {
    return definition.type === 'number' ? 'must be a number' : 'must be true or false';
  }
  return null;
}
