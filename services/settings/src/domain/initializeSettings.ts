import type { SecretBox } from '@orbital/crypto';
import type { DatabasePool } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import * as store from '../db/settingsStore.ts';
import type { MergedDefinitions } from '../definitions/mergeDefinitions.ts';
import { findEmptyRequiredSettings } from './findEmptyRequiredSettings.ts';

export type InitializationSummary = {
  created: number;
  skipped: number;
  groupsCreated: number;
  requiredEmpty: string[];
};

/**
 * At every start: create missing groups and missing settings with their defaults, linked to their group;
 * leave existing settings alone so their values survive restarts. Safe when replicas run it together
 * (inserts that lose the race do nothing).
 */
export async function initializeSettings(deps: {
  pool: DatabasePool;
  box: SecretBox;
  definitions: MergedDefinitions;
  logger: Logger;
}): Promise<InitializationSummary> {
  const { definitions, box, logger } = deps;
  for (const ignored of definitions.ignored) {
    logger.warn(ignored, 'plugin setting ignored: the key is already defined');
  }
  const result = await deps.pool.transaction(async (tx) => {
    const groups = await store.insertMissingGroups(
      tx,
      definitions.groups.map((g) => ({
        id: g.id,
        name: g.name,
        description: g.description,
        icon: g.icon,
        sort_order: g.sort_order,
      })),
    );
    const created = await store.insertMissingSettings(
      tx,
      definitions.settings.map((d) => {
        const value = String(d.defaultValue);
        return {
          key: d.key,
          value: d.encrypted && value !== '' ? box.encrypt(value, d.key) : value,
          description: d.description,
          is_encrypted: d.encrypted,
          group_id: d.group_id,
        };
      }),
    );
    const current = await store.lockSettings(
      tx,
      definitions.settings.map((d) => d.key),
    );
    // Conditions are read in clear; one that does not decrypt counts as set (health reports it).
    const plain = (row: (typeof current)[number]) => {
      if (!row.is_encrypted || row.value === '') return row.value;
      try {
        return box.decrypt(row.value, row.key);
      } catch {
        return row.value;
      }
    };
    const values = new Map(current.map((row) => [row.key, plain(row)]));
    const requiredEmpty = findEmptyRequiredSettings(definitions.settings, values);
    return { groupsCreated: groups.length, created: created.length, requiredEmpty };
  });
  const summary = { ...result, skipped: definitions.settings.length - result.created };
  logger.info(
    { created: summary.created, skipped: summary.skipped, groups_created: summary.groupsCreated },
    'settings initialised from definitions',
  );
  if (summary.requiredEmpty.length > 0) {
    logger.warn({ settings: summary.requiredEmpty }, 'required settings in use are still empty');
  }
  return summary;
}
