import type { Bus } from '@orbital/bus';
import {
  installationCreate,
  installationUpdate,
  requestLogQuery,
  installationSubjects as s,
  serverJsonImport,
  serverLogQuery,
  settingsPatch,
  templateCreate,
  templateInput,
  templateUpdate,
  templateView,
  userConfigBody,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { z } from 'zod';
import { serverJsonDocument, templateFromServerJson } from '../catalogue/templateFromServerJson.ts';
import { installationOf, installationParams, teamOf, teamParams, uuidOf } from '../http/pathParams.ts';
import { relayTable, subjectTable } from '../http/proxyRoute.ts';

export const slugParams = z.object({ slug: z.string().min(1).max(64) });
const templateOf = ({ params }: { params: z.output<typeof slugParams> }) => ({ slug: params.slug });
const requestParams = installationParams.extend({ requestId: uuidOf('request') });

/**
 * A server.json document as a template and the inputs it asks for, or the 400 naming each problem of it
 * (paths under `body.server`).
 */
function importedTemplate(body: z.output<typeof serverJsonImport>) {
  const refuse = (problems: Array<{ path: string; message: string }>) =>
    new AppError('validation_failed', 'The server.json document cannot be imported', {
      details: problems.map((p) => ({ path: `body.${p.path}`, message: p.message })),
    });
  const document = serverJsonDocument.safeParse(body.server);
  if (!document.success) {
    throw refuse(
      document.error.issues.map((i) => ({ path: ['server', ...i.path.map(String)].join('.'), message: i.message })),
    );
  }
  const converted = templateFromServerJson(document.data, body.slug ? { slug: body.slug } : {});
  if ('problems' in converted) throw refuse(converted.problems);
  return converted;
}

export const installationsPath = '/api/teams/:teamId/mcp/installations/:installationId';

/** The installation and the route's query: a page of its server logs or request logs, or their live twin's snapshot. */
export const installationAndQuery = <Q>(input: { params: z.output<typeof installationParams>; query: Q }) => ({
  ...installationOf(input),
  query: input.query,
});

/**
 * MCP server templates, team installations and their monitoring. Each route relays one subject and takes its
 * access from it; the installations service judges it again and checks that the installation belongs to the
 * team in the path.
 */
export function installationRoutes(bus: Bus) {
  const template = relayTable(bus, ['mcp-servers']);
  const serveTemplate = subjectTable(bus, ['mcp-servers']);
  const installation = relayTable(bus, ['installations']);
  return [
    template(s.listTemplates, 'GET /api/mcp/servers', 'The MCP server catalogue', { toRequest: () => ({}) }),
    template(s.createTemplate, 'POST /api/mcp/servers', 'Add an MCP server template', {
      body: templateCreate,
      successStatus: 201,
      toRequest: ({ body }) => body,
    }),
    serveTemplate(
      s.createTemplate,
      'POST /api/mcp/servers/import',
      'Add a template from an MCP Registry server.json document (given in the body; nothing is fetched)',
      {
        body: serverJsonImport,
        response: z.object({ template: templateView, inputs: z.array(templateInput) }),
        successStatus: 201,
        toRequest: ({ body }) => importedTemplate(body).template,
        async handler({ body }, create) {
          // Converted again for the inputs it names: pure and cheap, and the access was judged on the first.
          const { template, inputs } = importedTemplate(body);
          return { template: await create(template), inputs };
        },
      },
    ),
    template(s.getTemplate, 'GET /api/mcp/servers/:slug', 'One MCP server template', {
      params: slugParams,
      toRequest: templateOf,
    }),
    template(s.updateTemplate, 'PUT /api/mcp/servers/:slug', 'Change an MCP server template', {
      params: slugParams,
      body: templateUpdate,
      toRequest: (input) => ({ ...templateOf(input), changes: input.body }),
    }),
    template(s.deleteTemplate, 'DELETE /api/mcp/servers/:slug', 'Remove an MCP server template no team has installed', {
      params: slugParams,
      toRequest: templateOf,
    }),
    installation(s.listInstallations, 'GET /api/teams/:teamId/mcp/installations', "The team's MCP installations", {
      params: teamParams,
      toRequest: teamOf,
    }),
    installation(
      s.createInstallation,
      'POST /api/teams/:teamId/mcp/installations',
      'Install an MCP server template in the team',
      {
        params: teamParams,
        body: installationCreate,
        successStatus: 201,
        toRequest: ({ params, body }) => ({ team_id: params.teamId, installation: body }),
      },
    ),
    installation(s.getInstallation, `GET ${installationsPath}`, 'One installation of the team', {
      params: installationParams,
      toRequest: installationOf,
    }),
    installation(s.updateInstallation, `PUT ${installationsPath}`, 'Change the team level of an installation', {
      params: installationParams,
      body: installationUpdate,
      toRequest: (input) => ({ ...installationOf(input), changes: input.body }),
    }),
    installation(
      s.deleteInstallation,
      `DELETE ${installationsPath}`,
      'Remove an installation, its logs and request logs',
      { params: installationParams, toRequest: installationOf },
    ),
    installation(
      s.putUserConfig,
      `PUT ${installationsPath}/user-config`,
      'Set your own user level of the installation configuration',
      {
        params: installationParams,
        body: userConfigBody,
        toRequest: (input) => ({ ...installationOf(input), config: input.body }),
      },
    ),
    installation(
      s.getStatus,
      `GET ${installationsPath}/status`,
      'Status, status message and last update of the installation',
      { params: installationParams, toRequest: installationOf },
    ),
    installation(
      s.listLogs,
      `GET ${installationsPath}/logs`,
      'Server logs (stderr), newest first; limit/offset, optional level',
      {
        params: installationParams,
        querystring: serverLogQuery,
        toRequest: installationAndQuery,
      },
    ),
    installation(
      s.listRequests,
      `GET ${installationsPath}/requests`,
      'Request logs, newest first; responses only while request logging is on',
      {
        params: installationParams,
        querystring: requestLogQuery,
        toRequest: installationAndQuery,
      },
    ),
    installation(
      s.getRequest,
      `GET ${installationsPath}/requests/:requestId`,
      'One request log with its full parameters and, when kept, its response',
      {
        params: requestParams,
        toRequest: (input) => ({ ...installationOf(input), request_id: input.params.requestId }),
      },
    ),
    installation(
      s.updateSettings,
      `PATCH ${installationsPath}/settings`,
      'Installation settings (request_logging_enabled), distributed to satellites',
      {
        params: installationParams,
        body: settingsPatch,
        toRequest: (input) => ({ ...installationOf(input), settings: input.body }),
      },
    ),
  ];
}
