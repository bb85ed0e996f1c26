import type { Bus } from '@orbital/bus';
import { toolPolicySubjects as s, teamToolPolicyUpdate, toolPolicyUpdate } from '@orbital/contracts';
import { z } from 'zod';
import { installationParams, teamParams } from '../http/pathParams.ts';
import { proxyRoute } from '../http/proxyRoute.ts';
import { installationsPath } from './installationRoutes.ts';

/**
 * Which tools run and which ask the caller first: per installation, and per team for a server's tools. Who may
 * call each route is the subject's access.
 */
export function toolPolicyRoutes(bus: Bus) {
  const tags = ['installations'];
  const approval = z
    .object({ tool_name: z.string().min(1).max(200), definition_hash: z.string().regex(/^[0-9a-f]{64}$/) })
    .strict();
  return [
    proxyRoute(bus, s.get, {
      method: 'GET',
      url: `${installationsPath}/tool-policy`,
      summary: "The installation's tools, the rules that apply to each and what they come to",
      tags,
      params: installationParams,
      toRequest: ({ params }) => ({ team_id: params.teamId, installation_id: params.installationId }),
    }),
    proxyRoute(bus, s.update, {
      method: 'PATCH',
      url: `${installationsPath}/tool-policy`,
      summary:
        "Change the installation's tool rules (enabled, needs confirmation) and what happens when a client cannot confirm",
      tags,
      params: installationParams,
      body: toolPolicyUpdate,
      toRequest: ({ params, body }) => ({
        team_id: params.teamId,
        installation_id: params.installationId,
        changes: body,
      }),
    }),
    proxyRoute(bus, s.listTeam, {
      method: 'GET',
      url: '/api/teams/:teamId/mcp/tool-policy',
      summary: "The team's rules for tools of every installation of a server",
      tags,
      params: teamParams,
      toRequest: ({ params }) => ({ team_id: params.teamId }),
    }),
    proxyRoute(bus, s.updateTeam, {
      method: 'PATCH',
      url: '/api/teams/:teamId/mcp/tool-policy',
      summary: "Change the team's rules for one server's tools (every installation of it)",
      tags,
      params: teamParams,
      body: teamToolPolicyUpdate,
      toRequest: ({ params, body }) => ({ team_id: params.teamId, changes: body }),
    }),
    proxyRoute(bus, s.listDefinitions, {
      method: 'GET',
      url: `${installationsPath}/tool-definitions`,
      summary: 'Pinned tool definitions: new or changed ones held back, each beside the approved one it would replace',
      tags,
      params: installationParams,
      toRequest: ({ params }) => ({ team_id: params.teamId, installation_id: params.installationId }),
    }),
    proxyRoute(bus, s.approveDefinition, {
      method: 'POST',
      url: `${installationsPath}/tool-definitions/approve`,
      summary: 'Approve a held-back tool definition; satellites serve the tool again',
      tags,
      params: installationParams,
      body: approval,
      toRequest: ({ params, body }) => ({
        team_id: params.teamId,
        installation_id: params.installationId,
        ...body,
      }),
    }),
  ];
}
