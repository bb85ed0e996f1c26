import { groupId, settingKey } from '@orbital/contracts';
import { z } from 'zod';

/** One setting of a definition module: every property is required. */
export const settingDefinition = z
  .object({
    key: settingKey,
    name: z.string().min(1),
    defaultValue: z.union([z.string(), z.number(), z.boolean()]),
    type: z.enum(['string', 'number', 'boolean']),
    description: z.string(),
    encrypted: z.boolean(),
    required: z.boolean(),
  })
  .strict()
  .refine((d) => typeof d.defaultValue === d.type || (d.type !== 'string' && typeof d.defaultValue === 'string'), {
    message: 'defaultValue does not match type',
  });
export type SettingDefinition = z.infer<typeof settingDefinition>;

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
export const definitionModule = z.object({ group: groupDefinition, settings: z.array(settingDefinition).min(1) });
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
