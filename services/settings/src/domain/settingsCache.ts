import type { GroupRow, SettingRow } from '../db/settingsRows.ts';

/**
 * Every setting and group in memory, so reads never wait for the database, kept coherent across replicas:
 * each committed write is applied here and broadcast to the other replicas, which apply it too. A change
 * carries the row's revision (a database sequence); an older revision than the one held is ignored, so
 * out-of-order broadcasts never roll a value back. Deletions leave a tombstone revision for the same reason.
 */
export type SettingsCache = ReturnType<typeof createSettingsCache>;

export function createSettingsCache() {
  let ready = false;
  const settings = new Map<string, SettingRow>();
  const tombstones = new Map<string, number>();
  const groups = new Map<string, GroupRow>();

  const knownRevision = (key: string) => settings.get(key)?.revision ?? tombstones.get(key) ?? 0;

  return {
    isReady: () => ready,
    /** Replaces everything with a full load from the database. */
    load(snapshot: { settings: SettingRow[]; groups: GroupRow[] }) {
      settings.clear();
      tombstones.clear();
      groups.clear();
      for (const row of snapshot.settings) settings.set(row.key, row);
      for (const group of snapshot.groups) groups.set(group.id, group);
      ready = true;
    },
    applySettings(rows: SettingRow[]) {
      for (const row of rows) {
        if (row.revision <= knownRevision(row.key)) continue;
        settings.set(row.key, row);
        tombstones.delete(row.key);
      }
    },
    applyDeletions(deletions: Array<{ key: string; revision: number }>) {
      for (const { key, revision } of deletions) {
        if (revision <= knownRevision(key)) continue;
        settings.delete(key);
        tombstones.set(key, revision);
      }
    },
    applyGroups(rows: GroupRow[]) {
      for (const group of rows) {
        const held = groups.get(group.id);
        if (!held || held.updated_at <= group.updated_at) groups.set(group.id, group);
      }
    },
    settings: () => [...settings.values()].sort((a, b) => (a.key < b.key ? -1 : 1)),
    setting: (key: string) => settings.get(key),
    groups: () => [...groups.values()].sort((a, b) => a.sort_order - b.sort_order || (a.id < b.id ? -1 : 1)),
    group: (id: string) => groups.get(id),
    size: () => settings.size,
  };
}
