import type { Bus } from '@orbital/bus';
import {
  installationCreate,
  installationStatusView,
  installationUpdate,
  installationView,
  requestLogPage,
  requestLogQuery,
  requestLogView,
  installationSubjects as s,
  serverJsonDocument,
  serverJsonImport,
  serverLogPage,
  serverLogQuery,
  settingsPatch,
  templateCreate,
  templateFromServerJson,
  templateInput,
  templateUpdate,
  templateView,
  userConfigBody,
  userConfigView,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';
import { installationParams, teamParams } from '../http/pathParams.ts';

export const slugParams = z.object({ slug: z.string().min(1).max(64) });
const requestParams = installationParams.extend({ requestId: z.uuid({ error: 'must be a request id (UUID)' }) });
const deleted = z.object({ deleted: z.literal(true) });

export const installationsPath = '/api/teams/:teamId/mcp/installations/:installationId';

/**
 * MCP server templates, team installations and their monitoring. The gateway checks the route's permission;
 * the installations service checks the caller's role again and that the installation belongs to the team in
 * the path.
 */
export function installationRoutes(bus: Bus) {
  const ref = (p: { teamId: string; installationId: string }) => ({
    team_id: p.teamId,
    installation_id: p.installationId,
  });
  return [
    defineRoute({
      method: 'GET',
      url: '/api/mcp/servers',
      summary: 'The MCP server catalogue',
      tags: ['mcp-servers'],
      access: { kind: 'session' },
      response: z.array(templateView),
      handler: ({ identity, requestId }) => bus.request(s.listTemplates, {}, { identity, requestId }),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/mcp/servers',
      summary: 'Add an MCP server template',
      tags: ['mcp-servers'],
      access: { kind: 'permission', permission: 'mcp_servers.manage' },
      body: templateCreate,
      response: templateView,
      successStatus: 201,
      handler: ({ body, identity, requestId }) => bus.request(s.createTemplate, body, { identity, requestId }),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/mcp/servers/import',
      summary: 'Add a template from an MCP Registry server.json document (given in the body; nothing is fetched)',
      tags: ['mcp-servers'],
      access: { kind: 'permission', permission: 'mcp_servers.manage' },
      body: serverJsonImport,
      response: z.object({ template: templateView, inputs: z.array(templateInput) }),
      successStatus: 201,
      async handler({ body, identity, requestId }) {
        const refuse = (problems: Array<{ path: string; message: string }>) =>
          new AppError('validation_failed', 'The server.json document cannot be imported', {
            details: problems.map((p) => ({ path: `body.${p.path}`, message: p.message })),
          });
        const document = serverJsonDocument.safeParse(body.server);
        if (!document.success) {
          throw refuse(
            document.error.issues.map((i) => ({
              path: ['server', ...i.path.map(String)].join('.'),
              message: i.message,
            })),
          );
        }
        const converted = templateFromServerJson(document.data, body.slug ? { slug: body.slug } : {});
        if ('problems' in converted) throw refuse(converted.problems);
        const template = await bus.request(s.createTemplate, converted.template, { identity, requestId });
        return { template, inputs: converted.inputs };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/mcp/servers/:slug',
      summary: 'One MCP server template',
      tags: ['mcp-servers'],
      access: { kind: 'session' },
      params: slugParams,
      response: templateView,
      handler: ({ params, identity, requestId }) =>
        bus.request(s.getTemplate, { slug: params.slug }, { identity, requestId }),
    }),
    defineRoute({
      method: 'PUT',
      url: '/api/mcp/servers/:slug',
      summary: 'Change an MCP server template',
      tags: ['mcp-servers'],
      access: { kind: 'permission', permission: 'mcp_servers.manage' },
      params: slugParams,
      body: templateUpdate,
      response: templateView,
      handler: ({ params, body, identity, requestId }) =>
        bus.request(s.updateTemplate, { slug: params.slug, changes: body }, { identity, requestId }),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/mcp/servers/:slug',
      summary: 'Remove an MCP server template no team has installed',
      tags: ['mcp-servers'],
      access: { kind: 'permission', permission: 'mcp_servers.manage' },
      params: slugParams,
      response: deleted,
      handler: ({ params, identity, requestId }) =>
        bus.request(s.deleteTemplate, { slug: params.slug }, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/teams/:teamId/mcp/installations',
      summary: "The team's MCP installations",
      tags: ['installations'],
      access: { kind: 'team', permission: 'installations.view', teamParam: 'teamId' },
      params: teamParams,
      response: z.array(installationView),
      handler: ({ params, identity, requestId }) =>
        bus.request(s.listInstallations, { team_id: params.teamId }, { identity, requestId }),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/teams/:teamId/mcp/installations',
      summary: 'Install an MCP server template in the team',
      tags: ['installations'],
      access: { kind: 'team', permission: 'installations.manage', teamParam: 'teamId' },
      params: teamParams,
      body: installationCreate,
      response: installationView,
      successStatus: 201,
      handler: ({ params, body, identity, requestId }) =>
        bus.request(s.createInstallation, { team_id: params.teamId, installation: body }, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: installationsPath,
      summary: 'One installation of the team',
      tags: ['installations'],
      access: { kind: 'team', permission: 'installations.view', teamParam: 'teamId' },
      params: installationParams,
      response: installationView,
      handler: ({ params, identity, requestId }) =>
        bus.request(s.getInstallation, ref(params), { identity, requestId }),
    }),
    defineRoute({
      method: 'PUT',
      url: installationsPath,
      summary: 'Change the team level of an installation',
      tags: ['installations'],
      access: { kind: 'team', permission: 'installations.manage', teamParam: 'teamId' },
      params: installationParams,
      body: installationUpdate,
      response: installationView,
      handler: ({ params, body, identity, requestId }) =>
        bus.request(s.updateInstallation, { ...ref(params), changes: body }, { identity, requestId }),
    }),
    defineRoute({
      method: 'DELETE',
      url: installationsPath,
      summary: 'Remove an installation, its logs and request logs',
      tags: ['installations'],
      access: { kind: 'team', permission: 'installations.manage', teamParam: 'teamId' },
      params: installationParams,
      response: deleted,
      handler: ({ params, identity, requestId }) =>
        bus.request(s.deleteInstallation, ref(params), { identity, requestId }),
    }),
    defineRoute({
      method: 'PUT',
      url: `${installationsPath}/user-config`,
      summary: 'Set your own user level of the installation configuration',
      tags: ['installations'],
      access: { kind: 'team', permission: 'installations.view', teamParam: 'teamId' },
      params: installationParams,
      body: userConfigBody,
      response: userConfigView,
      handler: ({ params, body, identity, requestId }) =>
        bus.request(s.putUserConfig, { ...ref(params), config: body }, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: `${installationsPath}/status`,
      summary: 'Status, status message and last update of the installation',
      tags: ['installations'],
      access: { kind: 'team', permission: 'installations.view', teamParam: 'teamId' },
      params: installationParams,
      response: installationStatusView,
      handler: ({ params, identity, requestId }) => bus.request(s.getStatus, ref(params), { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: `${installationsPath}/logs`,
      summary: 'Server logs (stderr), newest first; limit/offset, optional level',
      tags: ['installations'],
      access: { kind: 'team', permission: 'installations.view', teamParam: 'teamId' },
      params: installationParams,
      querystring: serverLogQuery,
      response: serverLogPage,
      handler: ({ params, query, identity, requestId }) =>
        bus.request(s.listLogs, { ...ref(params), query }, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: `${installationsPath}/requests`,
      summary: 'Request logs, newest first; responses only while request logging is on',
      tags: ['installations'],
      access: { kind: 'team', permission: 'installations.view', teamParam: 'teamId' },
      params: installationParams,
      querystring: requestLogQuery,
      response: requestLogPage,
      handler: ({ params, query, identity, requestId }) =>
        bus.request(s.listRequests, { ...ref(params), query }, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: `${installationsPath}/requests/:requestId`,
      summary: 'One request log with its full parameters and, when kept, its response',
      tags: ['installations'],
      access: { kind: 'team', permission: 'installations.view', teamParam: 'teamId' },
      params: requestParams,
      response: requestLogView,
      handler: ({ params, identity, requestId }) =>
        bus.request(s.getRequest, { ...ref(params), request_id: params.requestId }, { identity, requestId }),
    }),
    defineRoute({
      method: 'PATCH',
      url: `${installationsPath}/settings`,
      summary: 'Installation settings (request_logging_enabled), distributed to satellites',
      tags: ['installations'],
      access: { kind: 'team', permission: 'installations.manage', teamParam: 'teamId' },
      params: installationParams,
      body: settingsPatch,
      response: installationView,
      handler: ({ params, body, identity, requestId }) =>
        bus.request(s.updateSettings, { ...ref(params), settings: body }, { identity, requestId }),
    }),
  ];
}
