import type { Bus } from '@orbital/bus';
import {
  createRegistrationTokenBody,
  registrySubjects,
  satelliteMetricsQuery,
  updateIpAllowlistBody,
} from '@orbital/contracts';
import { z } from 'zod';
import { satelliteParams, teamParams, uuidOf } from '../http/pathParams.ts';
import { proxyRoute } from '../http/proxyRoute.ts';

const tags = ['satellites'];
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
  return [
    proxyRoute(bus, registrySubjects.createToken, {
      method: 'POST',
      url: '/api/satellites/registration-tokens',
      summary: 'Generate a single-use registration token for a global satellite (shown once)',
      tags,
      body: createRegistrationTokenBody,
      successStatus: 201,
      toRequest: ({ body }) => ({ target: global, options: body }),
    }),
    proxyRoute(bus, registrySubjects.listTokens, {
      method: 'GET',
      url: '/api/satellites/registration-tokens',
      summary: 'Global registration tokens, without the tokens themselves',
      tags,
      toRequest: () => ({ target: global }),
    }),
    proxyRoute(bus, registrySubjects.revokeToken, {
      method: 'DELETE',
      url: '/api/satellites/registration-tokens/:tokenId',
      summary: 'Revoke an unused global registration token',
      tags,
      params: globalTokenParams,
      toRequest: ({ params }) => ({ target: global, token_id: params.tokenId }),
    }),
    proxyRoute(bus, registrySubjects.createToken, {
      method: 'POST',
      url: '/api/teams/:teamId/satellites/registration-tokens',
      summary: 'Generate a single-use registration token for a satellite of this team (shown once)',
      tags,
      params: teamParams,
      body: createRegistrationTokenBody,
      successStatus: 201,
      toRequest: ({ params, body }) => ({ target: ofTeam(params.teamId), options: body }),
    }),
    proxyRoute(bus, registrySubjects.listTokens, {
      method: 'GET',
      url: '/api/teams/:teamId/satellites/registration-tokens',
      summary: "This team's registration tokens, without the tokens themselves",
      tags,
      params: teamParams,
      toRequest: ({ params }) => ({ target: ofTeam(params.teamId) }),
    }),
    proxyRoute(bus, registrySubjects.revokeToken, {
      method: 'DELETE',
      url: '/api/teams/:teamId/satellites/registration-tokens/:tokenId',
      summary: 'Revoke an unused registration token of this team',
      tags,
      params: teamTokenParams,
      toRequest: ({ params }) => ({ target: ofTeam(params.teamId), token_id: params.tokenId }),
    }),
    proxyRoute(bus, registrySubjects.listSatellites, {
      method: 'GET',
      url: '/api/satellites',
      summary: 'Satellites the caller may see: all for global admins, their teams’ otherwise',
      tags,
      toRequest: () => ({}),
    }),
    proxyRoute(bus, registrySubjects.listSatellites, {
      method: 'GET',
      url: '/api/teams/:teamId/satellites',
      summary: "This team's satellites and their status",
      tags,
      params: teamParams,
      toRequest: ({ params }) => ({ team_id: params.teamId }),
    }),
    proxyRoute(bus, registrySubjects.getSatellite, {
      method: 'GET',
      url: '/api/satellites/:id',
      summary: 'One satellite and its status',
      tags,
      params: satelliteParams,
      toRequest: ({ params }) => ({ satellite_id: params.id }),
    }),
    proxyRoute(bus, registrySubjects.getMetrics, {
      method: 'GET',
      url: '/api/satellites/:id/metrics',
      summary: "A satellite's heartbeat metrics (newest first) and the latest metrics of each process",
      tags,
      params: satelliteParams,
      querystring: satelliteMetricsQuery,
      toRequest: ({ params, query }) => ({ satellite_id: params.id, query }),
    }),
    proxyRoute(bus, registrySubjects.revokeSatellite, {
      method: 'DELETE',
      url: '/api/satellites/:id',
      summary: "Revoke a satellite's API key (global admins; team admins for their team's satellites)",
      tags,
      params: satelliteParams,
      toRequest: ({ params }) => ({ satellite_id: params.id }),
    }),
    proxyRoute(bus, registrySubjects.updateAllowlist, {
      method: 'PUT',
      url: '/api/satellites/:id/ip-allowlist',
      summary: "Replace a team satellite's IP allowlist (addresses and CIDR blocks; empty: any address)",
      tags,
      params: satelliteParams,
      body: updateIpAllowlistBody,
      toRequest: ({ params, body }) => ({ satellite_id: params.id, ip_allowlist: body.ip_allowlist }),
    }),
  ];
}
