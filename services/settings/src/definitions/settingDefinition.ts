import { groupId, processName, settingFormats, settingKey } from '@orbital/contracts';
import { z } from 'zod';

const settingFields = {
  key: settingKey,
  name: z.string().min(1),
  defaultValue: z.union([z.string(), z.number(), z.boolean()]),
  type: z.enum(['string', 'number', 'boolean']),
  description: z.string(),
  encrypted: z.boolean(),
  required: z.boolean(),
  /**
   * Beyond the specification: what a text or number must look like (a URL, an e-mail address, a port,
   * a host name), checked on every write so a typo is refused at the field, not by a reader later.
   */
  format: z.enum(settingFormats).optional(),
  /** Beyond the specification: the only values allowed (an enumeration), checked on every write. */
  options: z.array(z.string().min(1)).min(1).optional(),
  /**
   * Beyond the specification: the setting matters only while another boolean setting is on
   * (`smtp.host` only while `global.send_mail` is true), so start-up warns about an empty required
   * setting only when it would be used.
   */
  onlyWhen: settingKey.optional(),
};

const defaultMatchesType = (d: { defaultValue: string | number | boolean; type: string }) =>
  typeof d.defaultValue === d.type || (d.type !== 'string' && typeof d.defaultValue === 'string');

/** One setting of a definition module: the specification's properties are all required. */
export const settingDefinition = z
  .object(settingFields)
  .strict()
  .refine(defaultMatchesType, { message: 'defaultValue does not match type' });
export type SettingDefinition = z.infer<typeof settingDefinition>;

/**
 * A built-in setting also names the processes that read it (`readBy`): a setting nothing reads
 * promises what the platform does not do. `settingReaders.test.ts` checks each named process's code reads
 * the key, and that the README's table of settings agrees.
 */
export const coreSettingDefinition = z
  .object({ ...settingFields, readBy: z.array(processName).min(1) })
  .strict()
  .refine(defaultMatchesType, { message: 'defaultValue does not match type' });
export type CoreSettingDefinition = z.infer<typeof coreSettingDefinition>;

export const groupDefinition = z
  .object({
    id: groupId,
    name: z.string().min(1),
    description: z.string(),
    icon: z.string(),
    sort_order: z.number().int(),
  })
  .strict();
export type GroupDefinition = z.infer<typeof groupDefinition>;

/** A core definition module: one group and its settings. */
export const definitionModule = z.object({ group: groupDefinition, settings: z.array(coreSettingDefinition).min(1) });
export type DefinitionModule = z.infer<typeof definitionModule>;

/**
 * What a plugin declares as `globalSettingsExtension`: groups it adds and settings, each naming its
 * group (one of its own or an existing one).
 */
export const globalSettingsExtension = z.object({
  groups: z.array(groupDefinition).default([]),
  settings: z.array(z.intersection(settingDefinition, z.object({ group_id: groupId }))).default([]),
});
export type GlobalSettingsExtension = z.infer<typeof globalSettingsExtension>;
