import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type DefinitionModule,
  definitionModule,
  type GlobalSettingsExtension,
  globalSettingsExtension,
} from './settingDefinition.ts';

/**
 * Finds the core definition modules: every `*.settings.ts` file of the folder exporting
 * `settingsDefinition`, so adding a group is adding a file, with no list to keep in step.
 */
export async function discoverDefinitions(dir: string): Promise<DefinitionModule[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.settings.ts')).sort();
  const modules: DefinitionModule[] = [];
  for (const file of files) {
    const loaded = (await import(pathToFileURL(join(dir, file)).href)) as { settingsDefinition?: unknown };
    const parsed = definitionModule.safeParse(loaded.settingsDefinition);
    if (!parsed.success) throw new Error(`${file}: invalid settings definition: ${parsed.error.message}`);
    modules.push(parsed.data);
  }
  return modules;
}

export type PluginExtension = { plugin: string; extension: GlobalSettingsExtension };

/** Loads `globalSettingsExtension` from each plugin module, in the order given (first plugin wins). */
export async function loadPluginExtensions(modulePaths: string[]): Promise<PluginExtension[]> {
  const extensions: PluginExtension[] = [];
  for (const path of modulePaths) {
    const loaded = (await import(pathToFileURL(path).href)) as { globalSettingsExtension?: unknown };
    if (loaded.globalSettingsExtension === undefined) continue;
    const parsed = globalSettingsExtension.safeParse(loaded.globalSettingsExtension);
    if (!parsed.success) throw new Error(`${path}: invalid globalSettingsExtension: ${parsed.error.message}`);
    extensions.push({ plugin: path, extension: parsed.data });
  }
  return extensions;
}
