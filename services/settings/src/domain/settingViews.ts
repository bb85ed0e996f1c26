import type { GroupView, GroupWithSettings, SettingView } from '@orbital/contracts';
import type { GroupRow, SettingRow } from '../db/settingsRows.ts';
import type { SettingDefinition } from '../definitions/settingDefinition.ts';

/** The API view of a stored setting: encrypted values never leave as ciphertext or plaintext. */
export function toSettingView(row: SettingRow, definition?: SettingDefinition): SettingView {
  return {
    key: row.key,
    value: row.is_encrypted ? null : row.value,
    description: row.description,
    is_encrypted: row.is_encrypted,
    has_value: row.value !== '',
    group_id: row.group_id,
    definition: definition
      ? {
          name: definition.name,
          type: definition.type,
          required: definition.required,
          format: definition.format ?? null,
          options: definition.options ?? null,
        }
      : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toGroupView(row: GroupRow): GroupView {
  return { ...row };
}

export function toGroupWithSettings(group: GroupRow, settings: SettingRow[]): GroupWithSettings {
  return {
    ...toGroupView(group),
    settings: settings
      .filter((s) => s.group_id === group.id)
      .map((s) => {
        const view = toSettingView(s);
        return {
          key: view.key,
          value: view.value,
          description: view.description,
          is_encrypted: view.is_encrypted,
          created_at: view.created_at,
          updated_at: view.updated_at,
        };
      }),
  };
}

/**
 * `*` any run of characters, `?` one; everything else literal. A pattern with a wildcard matches whole
 * keys (`smtp.*`); one without matches the keys containing it (`smtp`), as a search box does.
 */
export function keyPatternToRegExp(pattern: string): RegExp {
  const body = [...pattern]
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')))
    .join('');
  return /[*?]/.test(pattern) ? new RegExp(`^${body}$`) : new RegExp(body);
}
