import type { Bus } from '@orbital/bus';
import {
  bulkRequest,
  createGroupRequest,
  createSettingRequest,
  groupId,
  keyPattern,
  settingsSubjects as s,
  settingKey,
  updateGroupBody,
  updateSettingBody,
} from '@orbital/contracts';
import { z } from 'zod';
import { relayTable } from '../http/proxyRoute.ts';

const groupParams = z.object({ groupId }).strict();
const keyParams = z.object({ key: settingKey }).strict();
/** The group and the setting a path names, as the settings subjects take them. */
const groupOf = ({ params }: { params: z.output<typeof groupParams> }) => ({ group_id: params.groupId });
const settingOf = ({ params }: { params: z.output<typeof keyParams> }) => ({ key: params.key });

/**
 * The settings endpoints (/api/settings/*), each a thin call to the settings service, which checks the
 * caller's role again. Responses use the envelope; encrypted values are always `null` in them.
 */
export function settingsRoutes(bus: Bus) {
  const relay = relayTable(bus, ['settings']);
  return [
    relay(s.listGroups, 'GET /api/settings/groups', 'Every setting group with its settings', { toRequest: () => ({}) }),
    relay(s.getGroup, 'GET /api/settings/groups/:groupId', 'One setting group', {
      params: groupParams,
      toRequest: groupOf,
    }),
    relay(s.createGroup, 'POST /api/settings/groups', 'Create a setting group', {
      body: createGroupRequest,
      successStatus: 201,
      toRequest: ({ body }) => body,
    }),
    relay(s.updateGroup, 'PUT /api/settings/groups/:groupId', 'Update a setting group', {
      params: groupParams,
      body: updateGroupBody,
      toRequest: (input) => ({ ...groupOf(input), changes: input.body }),
    }),
    relay(s.listSettings, 'GET /api/settings', 'Every setting', { toRequest: () => ({}) }),
    relay(s.listGroupSettings, 'GET /api/settings/group/:groupId', 'The settings of one group', {
      params: groupParams,
      toRequest: groupOf,
    }),
    relay(s.health, 'GET /api/settings/health', 'Whether encryption works (round trip) and the cache is loaded', {
      toRequest: () => ({}),
    }),
    relay(s.getSetting, 'GET /api/settings/:key', 'One setting', {
      params: keyParams,
      toRequest: settingOf,
    }),
    relay(
      s.createSetting,
      'POST /api/settings',
      'Create a setting (encrypted: true stores it encrypted; its value is never returned)',
      { body: createSettingRequest, successStatus: 201, toRequest: ({ body }) => body },
    ),
    relay(s.updateSetting, 'PUT /api/settings/:key', 'Update a setting', {
      params: keyParams,
      body: updateSettingBody,
      toRequest: (input) => ({ ...settingOf(input), changes: input.body }),
    }),
    relay(s.deleteSetting, 'DELETE /api/settings/:key', 'Delete a setting', {
      params: keyParams,
      toRequest: settingOf,
    }),
    relay(
      s.searchSettings,
      'POST /api/settings/search',
      'Settings whose key matches a pattern (* any run of characters, ? one character)',
      { body: z.object({ pattern: keyPattern }).strict(), toRequest: ({ body }) => body },
    ),
    relay(
      s.bulkSettings,
      'POST /api/settings/bulk',
      'Create or update many settings: all applied or none, with per-item errors',
      { body: bulkRequest, toRequest: ({ body }) => body },
    ),
  ];
}
