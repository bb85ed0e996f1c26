import type { Bus } from '@orbital/bus';
import {
  toolPolicySubjects as s,
  teamToolPolicyUpdate,
  toolDefinitionHash,
  toolName,
  toolPolicyUpdate,
} from '@orbital/contracts';
import { z } from 'zod';
import { installationOf, installationParams, teamOf, teamParams } from '../http/pathParams.ts';
import { relayTable } from '../http/proxyRoute.ts';
import { installationsPath } from './installationRoutes.ts';

/**
 * Which tools run and which ask the caller first: per installation, and per team for a server's tools. Who may
 * call each route is the subject's access.
 */
export function toolPolicyRoutes(bus: Bus) {
  const relay = relayTable(bus, ['installations']);
  const approval = z.object({ tool_name: toolName, definition_hash: toolDefinitionHash }).strict();
  return [
    relay(
      s.get,
      `GET ${installationsPath}/tool-policy`,
      "The installation's tools, the rules that apply to each and what they come to",
      { params: installationParams, toRequest: installationOf },
    ),
    relay(
      s.update,
      `PATCH ${installationsPath}/tool-policy`,
      "Change the installation's tool rules (enabled, needs confirmation) and what happens when a client cannot confirm",
      {
        params: installationParams,
        body: toolPolicyUpdate,
        toRequest: (input) => ({ ...installationOf(input), changes: input.body }),
      },
    ),
    relay(
      s.listTeam,
      'GET /api/teams/:teamId/mcp/tool-policy',
      "The team's rules for tools of every installation of a server",
      {
        params: teamParams,
        toRequest: teamOf,
      },
    ),
    relay(
      s.updateTeam,
      'PATCH /api/teams/:teamId/mcp/tool-policy',
      "Change the team's rules for one server's tools (every installation of it)",
      {
        params: teamParams,
        body: teamToolPolicyUpdate,
        toRequest: ({ params, body }) => ({ team_id: params.teamId, changes: body }),
      },
    ),
    relay(
      s.listDefinitions,
      `GET ${installationsPath}/tool-definitions`,
      'Pinned tool definitions: new or changed ones held back, each beside the approved one it would replace',
      { params: installationParams, toRequest: installationOf },
    ),
    relay(
      s.approveDefinition,
      `POST ${installationsPath}/tool-definitions/approve`,
      'Approve a held-back tool definition; satellites serve the tool again',
      {
        params: installationParams,
        body: approval,
        toRequest: (input) => ({ ...installationOf(input), ...input.body }),
      },
    ),
  ];
}
