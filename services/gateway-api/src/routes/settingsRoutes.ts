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
import { proxyRoute } from '../http/proxyRoute.ts';

const groupParams = z.object({ groupId }).strict();
const keyParams = z.object({ key: settingKey }).strict();
const tags = ['settings'];

/**
 * The settings endpoints (/api/settings/*), each a thin call to the settings service, which checks the
 * caller's role again. Responses use the envelope; encrypted values are always `null` in them.
 */
export function settingsRoutes(bus: Bus) {
  return [
    proxyRoute(bus, s.listGroups, {
      method: 'GET',
      url: '/api/settings/groups',
      summary: 'Every setting group with its settings',
      tags,
      toRequest: () => ({}),
    }),
    proxyRoute(bus, s.getGroup, {
      method: 'GET',
      url: '/api/settings/groups/:groupId',
      summary: 'One setting group',
      tags,
      params: groupParams,
      toRequest: ({ params }) => ({ group_id: params.groupId }),
    }),
    proxyRoute(bus, s.createGroup, {
      method: 'POST',
      url: '/api/settings/groups',
      summary: 'Create a setting group',
      tags,
      body: createGroupRequest,
      successStatus: 201,
      toRequest: ({ body }) => body,
    }),
    proxyRoute(bus, s.updateGroup, {
      method: 'PUT',
      url: '/api/settings/groups/:groupId',
      summary: 'Update a setting group',
      tags,
      params: groupParams,
      body: updateGroupBody,
      toRequest: ({ params, body }) => ({ group_id: params.groupId, changes: body }),
    }),
    proxyRoute(bus, s.listSettings, {
      method: 'GET',
      url: '/api/settings',
      summary: 'Every setting',
      tags,
      toRequest: () => ({}),
    }),
    proxyRoute(bus, s.listGroupSettings, {
      method: 'GET',
      url: '/api/settings/group/:groupId',
      summary: 'The settings of one group',
      tags,
      params: groupParams,
      toRequest: ({ params }) => ({ group_id: params.groupId }),
    }),
    proxyRoute(bus, s.health, {
      method: 'GET',
      url: '/api/settings/health',
      summary: 'Whether encryption works (round trip) and the cache is loaded',
      tags,
      toRequest: () => ({}),
    }),
    proxyRoute(bus, s.getSetting, {
      method: 'GET',
      url: '/api/settings/:key',
      summary: 'One setting',
      tags,
      params: keyParams,
      toRequest: ({ params }) => ({ key: params.key }),
    }),
    proxyRoute(bus, s.createSetting, {
      method: 'POST',
      url: '/api/settings',
      summary: 'Create a setting (encrypted: true stores it encrypted; its value is never returned)',
      tags,
      body: createSettingRequest,
      successStatus: 201,
      toRequest: ({ body }) => body,
    }),
    proxyRoute(bus, s.updateSetting, {
      method: 'PUT',
      url: '/api/settings/:key',
      summary: 'Update a setting',
      tags,
      params: keyParams,
      body: updateSettingBody,
      toRequest: ({ params, body }) => ({ key: params.key, changes: body }),
    }),
    proxyRoute(bus, s.deleteSetting, {
      method: 'DELETE',
      url: '/api/settings/:key',
      summary: 'Delete a setting',
      tags,
      params: keyParams,
      toRequest: ({ params }) => ({ key: params.key }),
    }),
    proxyRoute(bus, s.searchSettings, {
      method: 'POST',
      url: '/api/settings/search',
      summary: 'Settings whose key matches a pattern (* any run of characters, ? one character)',
      tags,
      body: z.object({ pattern: keyPattern }).strict(),
      toRequest: ({ body }) => body,
    }),
    proxyRoute(bus, s.bulkSettings, {
      method: 'POST',
      url: '/api/settings/bulk',
      summary: 'Create or update many settings: all applied or none, with per-item errors',
      tags,
      body: bulkRequest,
      toRequest: ({ body }) => body,
    }),
  ];
}
