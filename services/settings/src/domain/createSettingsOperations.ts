import { createHash, randomUUID } from 'node:crypto';
import { type AuditContext, type AuditRecord, recordAudit } from '@orbital/audit';
import { type Bus, publishEvent } from '@orbital/bus';
import {
  type AuditDetails,
  type GroupView,
  type GroupWithSettings,
  type SettingsCacheSync,
  type SettingView,
  settingsCacheSyncBroadcast,
  settingsChangedEvent,
  type settingsSubjects,
} from '@orbital/contracts';
import { checkSecretBox, DecryptionError, type SecretBox } from '@orbital/crypto';
import type { LivePool } from '@orbital/db';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { z } from 'zod';
import type { GroupRow, SettingRow } from '../db/settingsRows.ts';
import * as store from '../db/settingsStore.ts';
import type { SettingDefinition } from '../definitions/settingDefinition.ts';
import { acceptSettingValue } from './acceptSettingValue.ts';
import type { SettingsCache } from './settingsCache.ts';
import {
  keyPatternToRegExp,
  toSettingView as toDefinedSettingView,
  toGroupView,
  toGroupWithSettings,
} from './settingViews.ts';

type Req<K extends keyof typeof settingsSubjects> = z.output<(typeof settingsSubjects)[K]['request']>;

export type SettingsOperationsDeps = {
  pool: LivePool;
  cache: SettingsCache;
  box: SecretBox;
  bus: Bus;
  logger: Logger;
  /** The definitions of the built-in and plugin settings: their values are checked on every write. */
  definitions?: readonly SettingDefinition[];
};

export type SettingsOperations = ReturnType<typeof createSettingsOperations>;

/** The longest setting value an audit entry quotes; a longer one is cut, and says so. */
const quotedValueMax = 500;

function quoted(value: string): string {
  return value.length > quotedValueMax ? `${value.slice(0, quotedValueMax)}… (${value.length} characters)` : value;
}

/**
 * The entry of one setting written or deleted: its key, what changed, and its values only while it is
 * not encrypted before or after the change (turning encryption on means the value is a secret, so the
 * old plain value is not copied into the log either). Stored rows of plain settings hold the value as is.
 */
export function settingAudit(
  who: AuditContext,
  before: SettingRow | null,
  after: SettingRow | null,
  extra: AuditDetails = {},
): AuditRecord {
  const row = after ?? before;
  if (!row) throw new AppError('internal', 'A setting change names no setting');
  const secret = Boolean(before?.is_encrypted || after?.is_encrypted);
  const changed = before && after ? settingChanges(before, after) : [];
  return {
    ...who,
    action: !before ? 'setting.created' : !after ? 'setting.deleted' : 'setting.updated',
    target: { kind: 'setting', id: row.key },
    details: {
      key: row.key,
      group_id: row.group_id,
      encrypted: secret,
      ...(before && after ? { changed } : {}),
      ...(secret
        ? {}
        : {
            ...(before ? { old_value: quoted(before.value) } : {}),
            ...(after ? { new_value: quoted(after.value) } : {}),
          }),
      ...extra,
    },
  };
}

function settingChanges(before: SettingRow, after: SettingRow): string[] {
  const changed: string[] = [];
  // An encrypted value is compared as stored: a new ciphertext means a new value was written.
  if (before.value !== after.value) changed.push('value');
  if (before.description !== after.description) changed.push('description');
  if (before.group_id !== after.group_id) changed.push('group_id');
  if (before.is_encrypted !== after.is_encrypted) changed.push('encrypted');
  return changed;
}

export function createSettingsOperations(deps: SettingsOperationsDeps) {
  const { pool, cache, box, bus, logger } = deps;
  const origin = randomUUID();
  const definitions = new Map((deps.definitions ?? []).map((d) => [d.key, d]));
  const toSettingView = (row: SettingRow) => toDefinedSettingView(row, definitions.get(row.key));

  /**
   * The text to store for a written value, or a refusal naming the field as the request named it (and
   * the setting's key) when its definition does not allow the value.
   */
  function acceptValue(key: string, value: string | number | boolean, path: string): string {
    const definition = definitions.get(key);
    const accepted = acceptSettingValue(definition, value);
    if (accepted.problem !== undefined) {
      throw new AppError('validation_failed', `${definition?.name ?? key} ${accepted.problem}`, {
        details: [{ path, key, message: accepted.problem }],
      });
    }
    return accepted.text;
  }

  /** Reads come from memory; until the cache is loaded they fall back to the database. */
  async function snapshot(): Promise<{ settings: SettingRow[]; groups: GroupRow[] }> {
    if (cache.isReady()) return { settings: cache.settings(), groups: cache.groups() };
    return store.loadEverything(pool.get());
  }

  async function reload(): Promise<void> {
    cache.load(await store.loadEverything(pool.get()));
  }

  /** Stored form of a value: encrypted with its key as context, except the empty value (nothing to hide). */
  function storedValue(key: string, value: string, encrypted: boolean): string {
    return encrypted && value !== '' ? box.encrypt(value, key) : value;
  }

  function plainValue(row: SettingRow): string {
    return row.is_encrypted && row.value !== '' ? box.decrypt(row.value, row.key) : row.value;
  }

  /**
   * The keys of stored encrypted values that do not decrypt (a changed byte, a row copied from another
   * key, a value written under another SERVICE_ENCRYPTION_SECRET). Names only: never a value.
   */
  function undecryptableKeys(rows: readonly SettingRow[]): string[] {
    return rows
      .filter((row) => {
        if (!row.is_encrypted || row.value === '') return false;
        try {
          box.decrypt(row.value, row.key);
          return false;
        } catch (error) {
          if (error instanceof DecryptionError) return true;
          throw error;
        }
      })
      .map((row) => row.key);
  }

  /** Applies a committed change here, then tells every other replica and any event subscriber. */
  async function publish(
    change: Omit<SettingsCacheSync, 'origin'>,
    action: 'created' | 'updated' | 'deleted' | 'bulk',
  ) {
    cache.applyGroups(change.groups);
    cache.applySettings(change.settings);
    cache.applyDeletions(change.deletions);
    const sync: SettingsCacheSync = { origin, ...change };
    bus.broadcast(settingsCacheSyncBroadcast, sync);
    // Flushed before the reply: a reader asking another replica next finds the change already applied.
    await bus.connection.flush();
    // The domain event goes to JetStream like every other (acknowledged, stored once): its id is made of
    // the revisions the change wrote, so a repeated publish of the same change is dropped as a duplicate.
    const keys = [...change.settings.map((s) => s.key), ...change.deletions.map((d) => d.key)];
    const identity = [
      ...change.settings.map((s) => `${s.key}@${s.revision}`),
      ...change.deletions.map((d) => `${d.key}@${d.revision}`),
      ...change.groups.map((g) => `group:${g.id}@${g.updated_at}`),
    ].join(',');
    await publishEvent(
      bus,
      settingsChangedEvent,
      { keys, action, changed_at: new Date().toISOString() },
      { msgId: `settings:${createHash('sha256').update(identity).digest('hex').slice(0, 32)}` },
    ).catch((err: unknown) => {
      // The change is committed and every replica has it; only subscribers of the event miss it.
      logger.warn({ err, keys }, 'could not publish evt.settings.changed');
    });
  }

  /** A change another replica committed (the bus has checked it against its contract). */
  function receive(sync: SettingsCacheSync) {
    if (sync.origin === origin || !cache.isReady()) return;
    cache.applyGroups(sync.groups);
    cache.applySettings(sync.settings);
    cache.applyDeletions(sync.deletions);
  }

  async function findSetting(key: string): Promise<SettingRow> {
    const row = cache.isReady() ? cache.setting(key) : (await snapshot()).settings.find((s) => s.key === key);
    if (!row) throw new AppError('not_found', `Setting ${key} does not exist`, { details: { key } });
    return row;
  }

  async function findGroup(id: string): Promise<GroupRow> {
    const row = cache.isReady() ? cache.group(id) : (await snapshot()).groups.find((g) => g.id === id);
    if (!row) throw new AppError('not_found', `Setting group ${id} does not exist`, { details: { group_id: id } });
    return row;
  }

  return {
    reload,
    receive,
    origin,

    async listGroups(): Promise<GroupWithSettings[]> {
      const { settings, groups } = await snapshot();
      return groups.map((group) => toGroupWithSettings(group, settings));
    },

    async getGroup({ group_id }: Req<'getGroup'>): Promise<GroupView> {
      return toGroupView(await findGroup(group_id));
    },

    async createGroup(request: Req<'createGroup'>, who: AuditContext): Promise<GroupView> {
      const row = await pool.get().transaction(async (tx) => {
        const created = await store.insertGroup(tx, {
          id: request.id,
          name: request.name,
          description: request.description ?? null,
          icon: request.icon ?? null,
          sort_order: request.sort_order,
        });
        await recordAudit(tx, {
          ...who,
          action: 'setting_group.created',
          target: { kind: 'setting_group', id: created.id },
          details: { name: created.name },
        });
        return created;
      });
      await publish({ settings: [], deletions: [], groups: [row] }, 'created');
      return toGroupView(row);
    },

    async updateGroup({ group_id, changes }: Req<'updateGroup'>, who: AuditContext): Promise<GroupView> {
      const row = await pool.get().transaction(async (tx) => {
        const current = await store.lockGroup(tx, group_id);
        if (!current) throw new AppError('not_found', `Setting group ${group_id} does not exist`);
        const updated = await store.updateGroupRow(tx, group_id, {
          id: group_id,
          name: changes.name ?? current.name,
          description: changes.description === undefined ? current.description : changes.description,
          icon: changes.icon === undefined ? current.icon : changes.icon,
          sort_order: changes.sort_order ?? current.sort_order,
        });
        await recordAudit(tx, {
          ...who,
          action: 'setting_group.updated',
          target: { kind: 'setting_group', id: group_id },
          details: { changed: Object.keys(changes).sort() },
        });
        return updated;
      });
      if (!row) throw new AppError('not_found', `Setting group ${group_id} does not exist`);
      await publish({ settings: [], deletions: [], groups: [row] }, 'updated');
      return toGroupView(row);
    },

    async listSettings(): Promise<SettingView[]> {
      return (await snapshot()).settings.map(toSettingView);
    },

    async listGroupSettings({ group_id }: Req<'listGroupSettings'>): Promise<SettingView[]> {
      await findGroup(group_id);
      return (await snapshot()).settings.filter((s) => s.group_id === group_id).map(toSettingView);
    },

    async getSetting({ key }: Req<'getSetting'>): Promise<SettingView> {
      return toSettingView(await findSetting(key));
    },

    async createSetting(request: Req<'createSetting'>, who: AuditContext): Promise<SettingView> {
      const value = acceptValue(request.key, request.value, 'body.value');
      const row = await pool.get().transaction(async (tx) => {
        const created = await store.insertSetting(tx, {
          key: request.key,
          value: storedValue(request.key, value, request.encrypted),
          description: request.description ?? null,
          is_encrypted: request.encrypted,
          group_id: request.group_id ?? null,
        });
        await recordAudit(tx, settingAudit(who, null, created));
        return created;
      });
      await publish({ settings: [row], deletions: [], groups: [] }, 'created');
      return toSettingView(row);
    },

    async updateSetting({ key, changes }: Req<'updateSetting'>, who: AuditContext): Promise<SettingView> {
      const value = changes.value === undefined ? undefined : acceptValue(key, changes.value, 'body.value');
      const row = await pool.get().transaction(async (tx) => {
        const [current] = await store.lockSettings(tx, [key]);
        if (!current) throw new AppError('not_found', `Setting ${key} does not exist`, { details: { key } });
        const encrypted = changes.encrypted ?? current.is_encrypted;
        // Turning encryption off would store the secret in clear where anyone reading the settings sees
        // it: that takes a new value, and the old one is never revealed.
        if (current.is_encrypted && !encrypted && value === undefined) {
          throw new AppError('validation_failed', `Turning encryption off for ${key} needs a new value`, {
            details: [
              { path: 'body.value', message: 'give the new (unencrypted) value; the encrypted one stays secret' },
            ],
          });
        }
        // Turning encryption on alone re-stores the current value in the new form.
        const plain = value ?? plainValue(current);
        const updated = await store.updateSettingRow(tx, key, {
          key,
          value: storedValue(key, plain, encrypted),
          description: changes.description === undefined ? current.description : changes.description,
          is_encrypted: encrypted,
          group_id: changes.group_id === undefined ? current.group_id : changes.group_id,
        });
        await recordAudit(tx, settingAudit(who, current, updated));
        return updated;
      });
      await publish({ settings: [row], deletions: [], groups: [] }, 'updated');
      return toSettingView(row);
    },

    async deleteSetting({ key }: Req<'deleteSetting'>, who: AuditContext) {
      const revision = await pool.get().transaction(async (tx) => {
        const [current] = await store.lockSettings(tx, [key]);
        const deleted = current ? await store.deleteSettingRow(tx, key) : null;
        if (!current || deleted === null) {
          throw new AppError('not_found', `Setting ${key} does not exist`, { details: { key } });
        }
        await recordAudit(tx, settingAudit(who, current, null));
        return deleted;
      });
      await publish({ settings: [], deletions: [{ key, revision }], groups: [] }, 'deleted');
      return { key, deleted: true as const };
    },

    async searchSettings({ pattern }: Req<'searchSettings'>): Promise<SettingView[]> {
      // The pattern becomes an expression with every other character escaped; it never reaches SQL,
      // so neither LIKE wildcards nor quotes in it can do anything.
      const matcher = keyPatternToRegExp(pattern);
      return (await snapshot()).settings.filter((s) => matcher.test(s.key)).map(toSettingView);
    },

    async bulkSettings({ settings: items }: Req<'bulkSettings'>, who: AuditContext) {
      const errors: Array<{ index: number; key: string; path: string; message: string }> = [];
      const seen = new Map<string, number>();
      const values = items.map((item, index) => {
        const path = `body.settings.${index}`;
        const first = seen.get(item.key);
        if (first !== undefined) errors.push({ index, key: item.key, path, message: `duplicate of item ${first}` });
        else seen.set(item.key, index);
        const accepted = acceptSettingValue(definitions.get(item.key), item.value);
        if (accepted.problem !== undefined) {
          errors.push({ index, key: item.key, path: `${path}.value`, message: `value ${accepted.problem}` });
        }
        return accepted.text ?? '';
      });
      const result = await pool.get().transaction(async (tx) => {
        const groupIds = [...new Set(items.map((i) => i.group_id).filter((g): g is string => typeof g === 'string'))];
        const known = await store.existingGroupIds(tx, groupIds);
        items.forEach((item, index) => {
          if (item.group_id && !known.has(item.group_id)) {
            errors.push({
              index,
              key: item.key,
              path: `body.settings.${index}.group_id`,
              message: `setting group ${item.group_id} does not exist`,
            });
          }
        });
        if (errors.length > 0) {
          throw new AppError(
            'validation_failed',
            'No setting was written: fix the listed items and send the request again',
            {
              details: errors.sort((a, b) => a.index - b.index),
            },
          );
        }
        const existing = new Map(
          (
            await store.lockSettings(
              tx,
              items.map((i) => i.key),
            )
          ).map((r) => [r.key, r]),
        );
        const rows: SettingRow[] = [];
        let created = 0;
        for (const [index, item] of items.entries()) {
          const value = values[index] ?? '';
          const current = existing.get(item.key);
          let written: SettingRow;
          if (!current) {
            const encrypted = item.encrypted ?? false;
            written = await store.insertSetting(tx, {
              key: item.key,
              value: storedValue(item.key, value, encrypted),
              description: item.description ?? null,
              is_encrypted: encrypted,
              group_id: item.group_id ?? null,
            });
            created += 1;
          } else {
            const encrypted = item.encrypted ?? current.is_encrypted;
            written = await store.updateSettingRow(tx, item.key, {
              key: item.key,
              value: storedValue(item.key, value, encrypted),
              description: item.description ?? current.description,
              is_encrypted: encrypted,
              group_id: item.group_id === undefined ? current.group_id : item.group_id,
            });
          }
          rows.push(written);
          // One entry per setting, so the log finds a key's history however it was written.
          await recordAudit(tx, settingAudit(who, current ?? null, written, { bulk: true }));
        }
        return { rows, created };
      });
      await publish({ settings: result.rows, deletions: [], groups: [] }, 'bulk');
      return {
        created: result.created,
        updated: result.rows.length - result.created,
        settings: result.rows.map(toSettingView),
      };
    },

    async health() {
      const unreadable = undecryptableKeys((await snapshot()).settings);
      const encryption = checkSecretBox(box).ok && unreadable.length === 0 ? 'healthy' : 'unhealthy';
      if (unreadable.length > 0) {
        logger.warn({ keys: unreadable }, 'stored encrypted settings that cannot be decrypted');
      }
      return {
        status: encryption === 'healthy' && cache.isReady() ? ('healthy' as const) : ('unhealthy' as const),
        encryption: {
          status: encryption as 'healthy' | 'unhealthy',
          algorithm: 'aes-256-gcm' as const,
          undecryptable: { count: unreadable.length, keys: unreadable },
        },
        cache: { ready: cache.isReady(), settings: cache.size() },
        checked_at: new Date().toISOString(),
      };
    },

    /** Plaintext for platform services; encrypted values decrypted here and nowhere else. */
    async getValues(request: Req<'getValues'>) {
      const { settings } = await snapshot();
      const wanted = request.keys
        ? settings.filter((s) => request.keys?.includes(s.key))
        : settings.filter((s) => s.group_id === request.group_id);
      // A value that does not decrypt is named apart; it does not take the rest of its group down.
      const unreadable = undecryptableKeys(wanted);
      if (unreadable.length > 0) logger.warn({ keys: unreadable }, 'encrypted settings that cannot be decrypted');
      const readable = wanted.filter((s) => !unreadable.includes(s.key));
      return { values: Object.fromEntries(readable.map((s) => [s.key, plainValue(s)])), unreadable };
    },

    snapshot,
    plainValue,
  };
}
