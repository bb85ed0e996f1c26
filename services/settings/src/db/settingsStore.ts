import { type CommonQueryMethods, type DatabasePool, sql } from '@orbital/db';
import { AppError } from '@orbital/errors';
import { ForeignKeyIntegrityConstraintViolationError, UniqueIntegrityConstraintViolationError } from 'slonik';
import { type GroupRow, groupRow, type SettingRow, settingRow } from './settingsRows.ts';

const settingColumns = sql.fragment`key, value, description, is_encrypted, group_id, created_at, updated_at, revision`;
const groupColumns = sql.fragment`id, name, description, icon, sort_order, created_at, updated_at`;

export async function loadEverything(db: CommonQueryMethods): Promise<{ settings: SettingRow[]; groups: GroupRow[] }> {
  const [settings, groups] = await Promise.all([
    db.any(sql.type(settingRow)`SELECT ${settingColumns} FROM settings ORDER BY key`),
    db.any(sql.type(groupRow)`SELECT ${groupColumns} FROM setting_groups ORDER BY sort_order, id`),
  ]);
  return { settings: [...settings], groups: [...groups] };
}

export async function lockSettings(db: CommonQueryMethods, keys: string[]): Promise<SettingRow[]> {
  if (keys.length === 0) return [];
  return [
    ...(await db.any(
      sql.type(
        settingRow,
      )`SELECT ${settingColumns} FROM settings WHERE key = ANY(${sql.array(keys, 'text')}) FOR UPDATE`,
    )),
  ];
}

export async function existingGroupIds(db: CommonQueryMethods, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.anyFirst(
    sql.type(groupRow.pick({ id: true }))`SELECT id FROM setting_groups WHERE id = ANY(${sql.array(ids, 'text')})`,
  );
  return new Set(rows);
}

export type NewSetting = {
  key: string;
  value: string;
  description: string | null;
  is_encrypted: boolean;
  group_id: string | null;
};

/** The INSERT of one setting; a caller adds what happens on a conflict and what it returns. */
const settingInsert = (setting: NewSetting) => sql.fragment`
  INSERT INTO settings (key, value, description, is_encrypted, group_id)
  VALUES (${setting.key}, ${setting.value}, ${setting.description}, ${setting.is_encrypted}, ${setting.group_id})`;

/** Inserts each item that does not exist yet (`insert` returns null on a conflict); the rows created. */
async function insertMissing<Item, Row>(items: Item[], insert: (item: Item) => Promise<Row | null>): Promise<Row[]> {
  const created: Row[] = [];
  for (const item of items) {
    const row = await insert(item);
    if (row) created.push(row);
  }
  return created;
}

function translate(error: unknown, what: { key?: string; groupId?: string | null }): never {
  if (error instanceof UniqueIntegrityConstraintViolationError) {
    throw new AppError('conflict', what.key ? `Setting ${what.key} already exists` : 'Already exists', {
      cause: error,
    });
  }
  if (error instanceof ForeignKeyIntegrityConstraintViolationError) {
    throw new AppError('not_found', `Setting group ${what.groupId ?? ''} does not exist`, {
      cause: error,
      details: { group_id: what.groupId },
    });
  }
  throw error;
}

export async function insertSetting(db: CommonQueryMethods, setting: NewSetting): Promise<SettingRow> {
  try {
    return await db.one(sql.type(settingRow)`${settingInsert(setting)} RETURNING ${settingColumns}`);
  } catch (error) {
    translate(error, { key: setting.key, groupId: setting.group_id });
  }
}

/** Inserts the settings that do not exist yet and returns those it created (existing ones untouched). */
export function insertMissingSettings(db: CommonQueryMethods, settings: NewSetting[]): Promise<SettingRow[]> {
  return insertMissing(settings, (setting) =>
    db.maybeOne(
      sql.type(settingRow)`${settingInsert(setting)} ON CONFLICT (key) DO NOTHING RETURNING ${settingColumns}`,
    ),
  );
}

export async function updateSettingRow(db: CommonQueryMethods, key: string, next: NewSetting): Promise<SettingRow> {
  try {
    return await db.one(sql.type(settingRow)`
      UPDATE settings SET value = ${next.value}, description = ${next.description}, is_encrypted = ${next.is_encrypted},
        group_id = ${next.group_id}, updated_at = clock_timestamp(), revision = nextval('settings_revision_seq')
      WHERE key = ${key}
      RETURNING ${settingColumns}`);
  } catch (error) {
    translate(error, { groupId: next.group_id });
  }
}

/** Deletes a setting; returns the revision of the deletion, or null when there was nothing to delete. */
export async function deleteSettingRow(db: CommonQueryMethods, key: string): Promise<number | null> {
  const revision = await db.maybeOneFirst(
    sql.type(
      settingRow.pick({ revision: true }),
    )`DELETE FROM settings WHERE key = ${key} RETURNING nextval('settings_revision_seq') AS revision`,
  );
  return revision ?? null;
}

export type NewGroup = {
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  sort_order: number;
};

/** The INSERT of one group; a caller adds what happens on a conflict and what it returns. */
const groupInsert = (group: NewGroup) => sql.fragment`
  INSERT INTO setting_groups (id, name, description, icon, sort_order)
  VALUES (${group.id}, ${group.name}, ${group.description}, ${group.icon}, ${group.sort_order})`;

export async function insertGroup(db: CommonQueryMethods, group: NewGroup): Promise<GroupRow> {
  try {
    return await db.one(sql.type(groupRow)`${groupInsert(group)} RETURNING ${groupColumns}`);
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) {
      throw new AppError('conflict', `Setting group ${group.id} already exists`, { cause: error });
    }
    throw error;
  }
}

export function insertMissingGroups(db: CommonQueryMethods, groups: NewGroup[]): Promise<GroupRow[]> {
  return insertMissing(groups, (group) =>
    db.maybeOne(sql.type(groupRow)`${groupInsert(group)} ON CONFLICT (id) DO NOTHING RETURNING ${groupColumns}`),
  );
}

export async function updateGroupRow(db: CommonQueryMethods, id: string, next: NewGroup): Promise<GroupRow | null> {
  return db.maybeOne(sql.type(groupRow)`
    UPDATE setting_groups SET name = ${next.name}, description = ${next.description}, icon = ${next.icon},
      sort_order = ${next.sort_order}, updated_at = clock_timestamp()
    WHERE id = ${id}
    RETURNING ${groupColumns}`);
}

export async function lockGroup(db: CommonQueryMethods, id: string): Promise<GroupRow | null> {
  return db.maybeOne(sql.type(groupRow)`SELECT ${groupColumns} FROM setting_groups WHERE id = ${id} FOR UPDATE`);
}

export type { DatabasePool };
