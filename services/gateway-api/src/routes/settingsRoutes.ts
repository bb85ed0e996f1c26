import type { Bus } from '@orbital/bus';
import {
  bulkReply,
  bulkRequest,
  createGroupRequest,
  createSettingRequest,
  groupId,
  groupView,
  groupWithSettings,
  keyPattern,
  settingsSubjects as s,
  settingKey,
  settingsHealth,
  settingView,
  updateGroupBody,
  updateSettingBody,
} from '@orbital/contracts';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';

const groupParams = z.object({ groupId }).strict();
const keyParams = z.object({ key: settingKey }).strict();
const view = { kind: 'permission', permission: 'settings.view' } as const;
const edit = { kind: 'permission', permission: 'settings.edit' } as const;
const remove = { kind: 'permission', permission: 'settings.delete' } as const;
const tags = ['settings'];

/**
 * The settings endpoints of the spec, each a thin call to the settings service, which checks the
 * caller's role again. Responses use the envelope; encrypted values are always `null` in them.
 */
export function settingsRoutes(bus: Bus) {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/settings/groups',
      summary: 'Every setting group with its settings',
      tags,
      access: view,
      response: z.array(groupWithSettings),
      handler: ({ identity, requestId }) => bus.request(s.listGroups, {}, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/settings/groups/:groupId',
      summary: 'One setting group',
      tags,
      access: view,
      params: groupParams,
      response: groupView,
      handler: ({ params, identity, requestId }) =>
        bus.request(s.getGroup, { group_id: params.groupId }, { identity, requestId }),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/settings/groups',
      summary: 'Create a setting group',
      tags,
      access: edit,
      body: createGroupRequest,
      response: groupView,
      successStatus: 201,
      handler: ({ body, identity, requestId }) => bus.request(s.createGroup, body, { identity, requestId }),
    }),
    defineRoute({
      method: 'PUT',
      url: '/api/settings/groups/:groupId',
      summary: 'Update a setting group',
      tags,
      access: edit,
      params: groupParams,
      body: updateGroupBody,
      response: groupView,
      handler: ({ params, body, identity, requestId }) =>
        bus.request(s.updateGroup, { group_id: params.groupId, changes: body }, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/settings',
      summary: 'Every setting',
      tags,
      access: view,
      response: z.array(settingView),
      handler: ({ identity, requestId }) => bus.request(s.listSettings, {}, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/settings/group/:groupId',
      summary: 'The settings of one group',
      tags,
      access: view,
      params: groupParams,
      response: z.array(settingView),
      handler: ({ params, identity, requestId }) =>
        bus.request(s.listGroupSettings, { group_id: params.groupId }, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/settings/health',
      summary: 'Whether encryption works (round trip) and the cache is loaded',
      tags,
      access: view,
      response: settingsHealth,
      handler: ({ identity, requestId }) => bus.request(s.health, {}, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/settings/:key',
      summary: 'One setting',
      tags,
      access: view,
      params: keyParams,
      response: settingView,
      handler: ({ params, identity, requestId }) =>
        bus.request(s.getSetting, { key: params.key }, { identity, requestId }),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/settings',
      summary: 'Create a setting (encrypted: true stores it encrypted; its value is never returned)',
      tags,
      access: edit,
      body: createSettingRequest,
      response: settingView,
      successStatus: 201,
      handler: ({ body, identity, requestId }) => bus.request(s.createSetting, body, { identity, requestId }),
    }),
    defineRoute({
      method: 'PUT',
      url: '/api/settings/:key',
      summary: 'Update a setting',
      tags,
      access: edit,
      params: keyParams,
      body: updateSettingBody,
      response: settingView,
      handler: ({ params, body, identity, requestId }) =>
        bus.request(s.updateSetting, { key: params.key, changes: body }, { identity, requestId }),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/settings/:key',
      summary: 'Delete a setting',
      tags,
      access: remove,
      params: keyParams,
      response: z.object({ key: settingKey, deleted: z.literal(true) }),
      handler: ({ params, identity, requestId }) =>
        bus.request(s.deleteSetting, { key: params.key }, { identity, requestId }),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/settings/search',
      summary: 'Settings whose key matches a pattern (* any run of characters, ? one character)',
      tags,
      access: view,
      body: z.object({ pattern: keyPattern }).strict(),
      response: z.array(settingView),
      handler: ({ body, identity, requestId }) => bus.request(s.searchSettings, body, { identity, requestId }),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/settings/bulk',
      summary: 'Create or update many settings: all applied or none, with per-item errors',
      tags,
      access: edit,
      body: bulkRequest,
      response: bulkReply,
      handler: ({ body, identity, requestId }) => bus.request(s.bulkSettings, body, { identity, requestId }),
    }),
  ];
}
