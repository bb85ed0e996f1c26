import type { PluginExtension } from './discoverDefinitions.ts';
import type { DefinitionModule, GroupDefinition, SettingDefinition } from './settingDefinition.ts';

export type MergedDefinitions = {
  groups: GroupDefinition[];
  settings: Array<SettingDefinition & { group_id: string }>;
  /** Plugin keys dropped because core or an earlier plugin defines them. */
  ignored: Array<{ plugin: string; key: string; definedBy: string }>;
};

/**
 * Core first, then plugins in order; a key defined twice keeps its first definition (core wins over plugins,
 * and the first plugin over later ones), so a plugin cannot redefine a core setting. Groups merge the same
 * way.
 */
export function mergeDefinitions(core: DefinitionModule[], plugins: PluginExtension[]): MergedDefinitions {
  const groups = new Map<string, GroupDefinition>();
  const settings = new Map<string, SettingDefinition & { group_id: string }>();
  const owner = new Map<string, string>();
  const ignored: MergedDefinitions['ignored'] = [];
  for (const module of core) {
    groups.set(module.group.id, module.group);
    for (const setting of module.settings) {
      if (settings.has(setting.key)) throw new Error(`core settings define ${setting.key} twice`);
      settings.set(setting.key, { ...setting, group_id: module.group.id });
      owner.set(setting.key, 'core');
    }
  }
  for (const { plugin, extension } of plugins) {
    for (const group of extension.groups) if (!groups.has(group.id)) groups.set(group.id, group);
    for (const setting of extension.settings) {
      const definedBy = owner.get(setting.key);
      if (definedBy) {
        ignored.push({ plugin, key: setting.key, definedBy });
        continue;
      }
      settings.set(setting.key, setting);
      owner.set(setting.key, plugin);
    }
  }
  for (const setting of settings.values()) {
    if (!groups.has(setting.group_id))
      throw new Error(`setting ${setting.key} names unknown group ${setting.group_id}`);
  }
  return { groups: [...groups.values()], settings: [...settings.values()], ignored };
}
