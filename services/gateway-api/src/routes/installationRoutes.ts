import type { Bus } from '@orbital/bus';
import {
  installationCreate,
  installationUpdate,
  requestLogQuery,
  installationSubjects as s,
  serverJsonDocument,
  serverJsonImport,
  serverLogQuery,
  settingsPatch,
  templateCreate,
  templateFromServerJson,
  templateInput,
  templateUpdate,
  templateView,
  userConfigBody,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';
import { installationParams, teamParams, uuidOf } from '../http/pathParams.ts';
import { proxyRoute } from '../http/proxyRoute.ts';
import { globalAccess } from '../http/routeAccess.ts';

export const slugParams = z.object({ slug: z.string().min(1).max(64) });
const requestParams = installationParams.extend({ requestId: uuidOf('request') });

export const installationsPath = '/api/teams/:teamId/mcp/installations/:installationId';

/**
 * MCP server templates, team installations and their monitoring. Each route relays one subject and takes its
 * access from it; the installations service judges it again and checks that the installation belongs to the
 * team in the path.
 */
export function installationRoutes(bus: Bus) {
  const ref = (p: { teamId: string; installationId: string }) => ({
    team_id: p.teamId,
    installation_id: p.installationId,
  });
  const templates = { tags: ['mcp-servers'] };
  const manageTemplates = globalAccess('mcp_servers.manage');
  /** Every route under one installation; its access is its subject's. */
  const ofInstallation = { tags: ['installations'], params: installationParams };
  const ofTeam = { tags: ['installations'], params: teamParams };
  return [
    proxyRoute(bus, s.listTemplates, {
      method: 'GET',
      url: '/api/mcp/servers',
      summary: 'The MCP server catalogue',
      ...templates,
      toRequest: () => ({}),
    }),
    proxyRoute(bus, s.createTemplate, {
      method: 'POST',
      url: '/api/mcp/servers',
      summary: 'Add an MCP server template',
      ...templates,
      body: templateCreate,
      successStatus: 201,
      toRequest: ({ body }) => body,
    }),
    defineRoute({
      method: 'POST',
      url: '/api/mcp/servers/import',
      summary: 'Add a template from an MCP Registry server.json document (given in the body; nothing is fetched)',
      ...templates,
      access: manageTemplates,
      body: serverJsonImport,
      response: z.object({ template: templateView, inputs: z.array(templateInput) }),
      successStatus: 201,
      async handler({ body, identity, requestId, origin }) {
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
        const template = await bus.request(s.createTemplate, converted.template, { identity, requestId, origin });
        return { template, inputs: converted.inputs };
      },
    }),
    proxyRoute(bus, s.getTemplate, {
      method: 'GET',
      url: '/api/mcp/servers/:slug',
      summary: 'One MCP server template',
      ...templates,
      params: slugParams,
      toRequest: ({ params }) => ({ slug: params.slug }),
    }),
    proxyRoute(bus, s.updateTemplate, {
      method: 'PUT',
      url: '/api/mcp/servers/:slug',
      summary: 'Change an MCP server template',
      ...templates,
      params: slugParams,
      body: templateUpdate,
      toRequest: ({ params, body }) => ({ slug: params.slug, changes: body }),
    }),
    proxyRoute(bus, s.deleteTemplate, {
      method: 'DELETE',
      url: '/api/mcp/servers/:slug',
      summary: 'Remove an MCP server template no team has installed',
      ...templates,
      params: slugParams,
      toRequest: ({ params }) => ({ slug: params.slug }),
    }),
    proxyRoute(bus, s.listInstallations, {
      method: 'GET',
      url: '/api/teams/:teamId/mcp/installations',
      summary: "The team's MCP installations",
      ...ofTeam,
      toRequest: ({ params }) => ({ team_id: params.teamId }),
    }),
    proxyRoute(bus, s.createInstallation, {
      method: 'POST',
      url: '/api/teams/:teamId/mcp/installations',
      summary: 'Install an MCP server template in the team',
      ...ofTeam,
      body: installationCreate,
      successStatus: 201,
      toRequest: ({ params, body }) => ({ team_id: params.teamId, installation: body }),
    }),
    proxyRoute(bus, s.getInstallation, {
      method: 'GET',
      url: installationsPath,
      summary: 'One installation of the team',
      ...ofInstallation,
      toRequest: ({ params }) => ref(params),
    }),
    proxyRoute(bus, s.updateInstallation, {
      method: 'PUT',
      url: installationsPath,
      summary: 'Change the team level of an installation',
      ...ofInstallation,
      body: installationUpdate,
      toRequest: ({ params, body }) => ({ ...ref(params), changes: body }),
    }),
    proxyRoute(bus, s.deleteInstallation, {
      method: 'DELETE',
      url: installationsPath,
      summary: 'Remove an installation, its logs and request logs',
      ...ofInstallation,
      toRequest: ({ params }) => ref(params),
    }),
    proxyRoute(bus, s.putUserConfig, {
      method: 'PUT',
      url: `${installationsPath}/user-config`,
      summary: 'Set your own user level of the installation configuration',
      ...ofInstallation,
      body: userConfigBody,
      toRequest: ({ params, body }) => ({ ...ref(params), config: body }),
    }),
    proxyRoute(bus, s.getStatus, {
      method: 'GET',
      url: `${installationsPath}/status`,
      summary: 'Status, status message and last update of the installation',
      ...ofInstallation,
      toRequest: ({ params }) => ref(params),
    }),
    proxyRoute(bus, s.listLogs, {
      method: 'GET',
      url: `${installationsPath}/logs`,
      summary: 'Server logs (stderr), newest first; limit/offset, optional level',
      ...ofInstallation,
      querystring: serverLogQuery,
      toRequest: ({ params, query }) => ({ ...ref(params), query }),
    }),
    proxyRoute(bus, s.listRequests, {
      method: 'GET',
      url: `${installationsPath}/requests`,
      summary: 'Request logs, newest first; responses only while request logging is on',
      ...ofInstallation,
      querystring: requestLogQuery,
      toRequest: ({ params, query }) => ({ ...ref(params), query }),
    }),
    proxyRoute(bus, s.getRequest, {
      method: 'GET',
      url: `${installationsPath}/requests/:requestId`,
      summary: 'One request log with its full parameters and, when kept, its response',
      ...ofInstallation,
      params: requestParams,
      toRequest: ({ params }) => ({ ...ref(params), request_id: params.requestId }),
    }),
    proxyRoute(bus, s.updateSettings, {
      method: 'PATCH',
      url: `${installationsPath}/settings`,
      summary: 'Installation settings (request_logging_enabled), distributed to satellites',
      ...ofInstallation,
      body: settingsPatch,
      toRequest: ({ params, body }) => ({ ...ref(params), settings: body }),
    }),
  ];
}
