import { z } from 'zod';
import { globalAccess, serviceAccess } from '../access/subjectAccess.ts';
import { defineBroadcast } from '../events/defineBroadcast.ts';
import { defineEvent } from '../events/defineEvent.ts';
import { settingsEventsStream } from '../events/eventStreams.ts';
import { isoTimestamp, recordTimestamps } from '../isoTimestamp.ts';
import { defineSubject, emptyRequest } from '../subject.ts';
import {
  bulkReply,
  bulkRequest,
  createGroupRequest,
  createSettingRequest,
  groupId,
  groupView,
  groupWithSettings,
  keyPattern,
  settingKey,
  settingsHealth,
  settingView,
  updateGroupBody,
  updateSettingBody,
} from './settingsSchemas.ts';

const byGroup = z.object({ group_id: groupId }).strict();
const byKey = z.object({ key: settingKey }).strict();
const settingList = z.array(settingView);

// Settings belong to global admins: reading needs settings.view, writing settings.edit, deleting
// settings.delete; platform services read plaintext values through settings.value.get alone.
const view = globalAccess('settings.view');
const edit = globalAccess('settings.edit');

export const settingsSubjects = {
  listGroups: defineSubject({
    subject: 'settings.group.list',
    service: 'settings',
    access: view,
    description: 'Every group with its settings, by sort order.',
    request: emptyRequest,
    reply: z.array(groupWithSettings),
  }),
  getGroup: defineSubject({
    subject: 'settings.group.get',
    service: 'settings',
    access: view,
    description: 'One group.',
    request: byGroup,
    reply: groupView,
  }),
  createGroup: defineSubject({
    subject: 'settings.group.create',
    service: 'settings',
    access: edit,
    description: 'Creates a group; conflict when the id exists.',
    request: createGroupRequest,
    reply: groupView,
  }),
  updateGroup: defineSubject({
    subject: 'settings.group.update',
    service: 'settings',
    access: edit,
    description: 'Updates a group.',
    request: z.object({ group_id: groupId, changes: updateGroupBody }).strict(),
    reply: groupView,
  }),
  listSettings: defineSubject({
    subject: 'settings.setting.list',
    service: 'settings',
    access: view,
    description: 'Every setting, by key.',
    request: emptyRequest,
    reply: settingList,
  }),
  listGroupSettings: defineSubject({
    subject: 'settings.setting.list_by_group',
    service: 'settings',
    access: view,
    description: 'The settings of one group; not_found for an unknown group.',
    request: byGroup,
    reply: settingList,
  }),
  getSetting: defineSubject({
    subject: 'settings.setting.get',
    service: 'settings',
    access: view,
    description: 'One setting (encrypted values masked).',
    request: byKey,
    reply: settingView,
  }),
  createSetting: defineSubject({
    subject: 'settings.setting.create',
    service: 'settings',
    access: edit,
    description: 'Creates a setting; conflict when the key exists, not_found for an unknown group.',
    request: createSettingRequest,
    reply: settingView,
  }),
  updateSetting: defineSubject({
    subject: 'settings.setting.update',
    service: 'settings',
    access: edit,
    description: 'Updates a setting; not_found for an unknown key or group.',
    request: z.object({ key: settingKey, changes: updateSettingBody }).strict(),
    reply: settingView,
  }),
  deleteSetting: defineSubject({
    subject: 'settings.setting.delete',
    service: 'settings',
    access: globalAccess('settings.delete'),
    description: 'Deletes a setting.',
    request: byKey,
    reply: z.object({ key: settingKey, deleted: z.literal(true) }),
  }),
  searchSettings: defineSubject({
    subject: 'settings.setting.search',
    service: 'settings',
    access: view,
    description: 'Settings whose key matches a pattern (`*` any run, `?` one character).',
    request: z.object({ pattern: keyPattern }).strict(),
    reply: settingList,
  }),
  bulkSettings: defineSubject({
    subject: 'settings.setting.bulk',
    service: 'settings',
    access: edit,
    description: 'Creates or updates many settings atomically: all or none, with per-item errors.',
    request: bulkRequest,
    reply: bulkReply,
  }),
  health: defineSubject({
    subject: 'settings.health.get',
    service: 'settings',
    access: view,
    description: 'Whether encryption works (round trip, and every stored value decrypts) and the cache is loaded.',
    request: emptyRequest,
    reply: settingsHealth,
  }),
  /** For platform services only: plaintext values, encrypted ones decrypted. */
  getValues: defineSubject({
    subject: 'settings.value.get',
    service: 'settings',
    access: serviceAccess('gateway-api', 'satellite-registry'),
    description: 'Plaintext values of the given keys (or of a group) for platform services.',
    request: z
      .object({ keys: z.array(settingKey).max(500).optional(), group_id: groupId.optional() })
      .strict()
      .refine((r) => (r.keys === undefined) !== (r.group_id === undefined), 'give either keys or group_id'),
    // `unreadable`: keys whose stored value does not decrypt, left out of `values`.
    reply: z.object({ values: z.record(z.string(), z.string()), unreadable: z.array(z.string()).default([]) }),
  }),
} as const;

export const storedSetting = z.object({
  key: z.string(),
  value: z.string(),
  description: z.string().nullable(),
  is_encrypted: z.boolean(),
  group_id: z.string().nullable(),
  ...recordTimestamps,
  revision: z.number(),
});
export type StoredSetting = z.infer<typeof storedSetting>;

export const settingsCacheSync = z.object({
  origin: z.string(),
  settings: z.array(storedSetting),
  deletions: z.array(z.object({ key: z.string(), revision: z.number() })),
  groups: z.array(groupView),
});
export type SettingsCacheSync = z.infer<typeof settingsCacheSync>;

/**
 * After every committed write, so every replica's cache applies the change before it serves its next
 * request. Carries stored rows: encrypted values stay ciphertext.
 */
export const settingsCacheSyncBroadcast = defineBroadcast({
  subject: 'settings.cache.sync',
  producer: 'settings',
  listeners: ['settings'],
  description:
    'A committed settings change, as stored rows (encrypted values stay ciphertext), for every replica cache.',
  payload: settingsCacheSync,
});

/** Which keys changed, never their values. */
export const settingsChangedPayload = z.object({
  keys: z.array(z.string()),
  action: z.enum(['created', 'updated', 'deleted', 'bulk']),
  changed_at: isoTimestamp,
});

export const settingsChangedEvent = defineEvent({
  subject: 'evt.settings.changed',
  stream: settingsEventsStream,
  producer: 'settings',
  // gateway-api wakes the command polls it holds (a long poll answered at once).
  consumers: ['gateway-api'],
  description: 'Settings were created, updated or deleted; carries the keys, never the values.',
  payload: settingsChangedPayload,
});
