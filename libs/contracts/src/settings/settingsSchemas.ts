import { z } from 'zod';
import { isoTimestamp, recordTimestamps } from '../isoTimestamp.ts';

/** Dot-notation keys, lowercase with underscores by convention (`smtp.host`). */
export const settingKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/, 'must be dot-separated lowercase words (letters, digits, "_" and "-")');

export const groupId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lowercase letters, digits, "_" and "-"');

/** Setting values are text; 64 KiB is far beyond any configuration value and bounds a row's size. */
export const settingValue = z.string().max(65536);

/**
 * A value as a request may write it: text, or a JSON boolean or number for a setting of that type
 * (`{"value": false}`); the settings service stores it as the text typed reads accept.
 */
export const settingInputValue = z.union([settingValue, z.boolean(), z.number()]);

/**
 * What a defined text or number setting must look like, checked on every write. `role_mapping` and
 * `team_mapping` are the single sign-on's claim mappings (JSON, see identity/signInMethods.ts).
 */
export const settingFormats = ['url', 'email', 'port', 'hostname', 'role_mapping', 'team_mapping'] as const;
export type SettingFormat = (typeof settingFormats)[number];
const description = z.string().max(2000);

/**
 * A setting as the API shows it. An encrypted setting's `value` is always null here: encrypted values
 * are write-only through the API and reach only platform services (settings.value.get), so no response
 * body, proxy log or browser cache ever holds one. `has_value` tells a frontend whether one is set.
 */
export const settingView = z.object({
  key: settingKey,
  value: z.string().nullable(),
  description: z.string().nullable(),
  is_encrypted: z.boolean(),
  has_value: z.boolean(),
  group_id: z.string().nullable(),
  /**
   * What the setting's definition says of it (label, value type, whether it must be set), so a frontend
   * can render the right control; null for a setting created through the API without a definition.
   * Writes of a defined setting are checked against it.
   */
  definition: z
    .object({
      name: z.string(),
      type: z.enum(['string', 'number', 'boolean']),
      required: z.boolean(),
      /** What the text must look like (a URL, an e-mail address, a port, a host name), when the definition says. */
      format: z.enum(settingFormats).nullable(),
      /** The only values allowed (an enumeration), when the definition has them. */
      options: z.array(z.string()).nullable(),
    })
    .nullable(),
  ...recordTimestamps,
});
export type SettingView = z.infer<typeof settingView>;

export const groupView = z.object({
  id: groupId,
  name: z.string(),
  description: z.string().nullable(),
  icon: z.string().nullable(),
  sort_order: z.number().int(),
  ...recordTimestamps,
});
export type GroupView = z.infer<typeof groupView>;

/** The settings of a group in the list-all-groups response: no `group_id`, since the group holds them. */
export const groupSettingEntry = settingView.pick({
  key: true,
  value: true,
  description: true,
  is_encrypted: true,
  created_at: true,
  updated_at: true,
});
export const groupWithSettings = groupView.extend({ settings: z.array(groupSettingEntry) });
export type GroupWithSettings = z.infer<typeof groupWithSettings>;

export const createGroupRequest = z
  .object({
    id: groupId,
    name: z.string().min(1).max(200),
    description: description.optional(),
    icon: z.string().max(100).optional(),
    sort_order: z.number().int().min(-100000).max(100000).default(0),
  })
  .strict();

export const updateGroupBody = z
  .object({
    name: z.string().min(1).max(200).optional(),
    description: description.nullable().optional(),
    icon: z.string().max(100).nullable().optional(),
    sort_order: z.number().int().min(-100000).max(100000).optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'give at least one of name, description, icon, sort_order');

export const createSettingRequest = z
  .object({
    key: settingKey,
    value: settingInputValue,
    description: description.optional(),
    encrypted: z.boolean().default(false),
    group_id: groupId.nullable().optional(),
  })
  .strict();

export const updateSettingBody = z
  .object({
    value: settingInputValue.optional(),
    description: description.nullable().optional(),
    encrypted: z.boolean().optional(),
    group_id: groupId.nullable().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'give at least one of value, description, encrypted, group_id');

/**
 * Key patterns for search: `*` stands for any run of characters, `?` for one; everything else is
 * literal (SQL wildcards `%` and `_` included), so a pattern can never widen into an injection.
 */
export const keyPattern = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9_.*?-]+$/, 'may hold lowercase letters, digits, ".", "_", "-" and the wildcards "*" and "?"');

export const bulkSettingItem = z
  .object({
    key: settingKey,
    value: settingInputValue,
    group_id: groupId.nullable().optional(),
    encrypted: z.boolean().optional(),
    description: description.optional(),
  })
  .strict();

export const bulkRequest = z.object({ settings: z.array(bulkSettingItem).min(1).max(500) }).strict();

export const bulkReply = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  settings: z.array(settingView),
});

export const settingsHealth = z.object({
  status: z.enum(['healthy', 'unhealthy']),
  encryption: z.object({
    status: z.enum(['healthy', 'unhealthy']),
    algorithm: z.literal('aes-256-gcm'),
    /** Stored encrypted values that do not decrypt: how many, and their keys (never a value). */
    undecryptable: z.object({ count: z.number().int(), keys: z.array(z.string()) }),
  }),
  cache: z.object({ ready: z.boolean(), settings: z.number().int() }),
  checked_at: isoTimestamp,
});
