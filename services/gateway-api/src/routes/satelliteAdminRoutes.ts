import type { Bus } from '@orbital/bus';
import {
  createRegistrationTokenBody,
  registrySubjects,
  satelliteMetricsQuery,
  updateIpAllowlistBody,
} from '@orbital/contracts';
import { z } from 'zod';
import { satelliteOf, satelliteParams, teamOf, teamParams, uuidOf } from '../http/pathParams.ts';
import { relayTable } from '../http/proxyRoute.ts';

const globalTokenParams = z.object({ tokenId: uuidOf('token') }).strict();
const teamTokenParams = teamParams.extend({ tokenId: uuidOf('token') }).strict();
const global = { scope: 'global' } as const;
const ofTeam = (teamId: string) => ({ scope: 'team', team_id: teamId }) as const;

/**
 * Satellite management for people: registration tokens (global admins for global tokens,
 * team admins for their team's, global users may generate tokens for teams they belong to), and
 * listing, status and metrics of satellites. Routes open to any session leave the scoping to the
 * registry, which answers from the caller's identity: a satellite of another team is "not found".
 */
export function satelliteAdminRoutes(bus: Bus) {
  const relay = relayTable(bus, ['satellites']);
  return [
    relay(
      registrySubjects.createToken,
      'POST /api/satellites/registration-tokens',
      'Generate a single-use registration token for a global satellite (shown once)',
      {
        body: createRegistrationTokenBody,
        successStatus: 201,
        toRequest: ({ body }) => ({ target: global, options: body }),
      },
    ),
    relay(
      registrySubjects.listTokens,
      'GET /api/satellites/registration-tokens',
      'Global registration tokens, without the tokens themselves',
      { toRequest: () => ({ target: global }) },
    ),
    relay(
      registrySubjects.revokeToken,
      'DELETE /api/satellites/registration-tokens/:tokenId',
      'Revoke an unused global registration token',
      { params: globalTokenParams, toRequest: ({ params }) => ({ target: global, token_id: params.tokenId }) },
    ),
    relay(
      registrySubjects.createToken,
      'POST /api/teams/:teamId/satellites/registration-tokens',
      'Generate a single-use registration token for a satellite of this team (shown once)',
      {
        params: teamParams,
        body: createRegistrationTokenBody,
        successStatus: 201,
        toRequest: ({ params, body }) => ({ target: ofTeam(params.teamId), options: body }),
      },
    ),
    relay(
      registrySubjects.listTokens,
      'GET /api/teams/:teamId/satellites/registration-tokens',
      "This team's registration tokens, without the tokens themselves",
      { params: teamParams, toRequest: ({ params }) => ({ target: ofTeam(params.teamId) }) },
    ),
    relay(
      registrySubjects.revokeToken,
      'DELETE /api/teams/:teamId/satellites/registration-tokens/:tokenId',
      'Revoke an unused registration token of this team',
      {
        params: teamTokenParams,
        toRequest: ({ params }) => ({ target: ofTeam(params.teamId), token_id: params.tokenId }),
      },
    ),
    relay(
      registrySubjects.listSatellites,
      'GET /api/satellites',
      'Satellites the caller may see: all for global admins, their teams’ otherwise',
      { toRequest: () => ({}) },
    ),
    relay(
      registrySubjects.listSatellites,
      'GET /api/teams/:teamId/satellites',
      "This team's satellites and their status",
      { params: teamParams, toRequest: teamOf },
    ),
    relay(registrySubjects.getSatellite, 'GET /api/satellites/:id', 'One satellite and its status', {
      params: satelliteParams,
      toRequest: satelliteOf,
    }),
    relay(
      registrySubjects.getMetrics,
      'GET /api/satellites/:id/metrics',
      "A satellite's heartbeat metrics (newest first) and the latest metrics of each process",
      {
        params: satelliteParams,
        querystring: satelliteMetricsQuery,
        toRequest: ({ params, query }) => ({ satellite_id: params.id, query }),
      },
    ),
    relay(
      registrySubjects.revokeSatellite,
      'DELETE /api/satellites/:id',
      "Revoke a satellite's API key (global admins; team admins for their team's satellites)",
      { params: satelliteParams, toRequest: satelliteOf },
    ),
    relay(
      registrySubjects.updateAllowlist,
      'PUT /api/satellites/:id/ip-allowlist',
      "Replace a team satellite's IP allowlist (addresses and CIDR blocks; empty: any address)",
      {
        params: satelliteParams,
        body: updateIpAllowlistBody,
        toRequest: ({ params, body }) => ({ satellite_id: params.id, ip_allowlist: body.ip_allowlist }),
      },
    ),
  ];
}
