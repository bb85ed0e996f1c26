import type { Bus } from '@orbital/bus';
import {
  createdRegistrationToken,
  createRegistrationTokenBody,
  registrationTokenView,
  registrySubjects,
  satelliteMetrics,
  satelliteMetricsQuery,
  satelliteView,
  updateIpAllowlistBody,
} from '@orbital/contracts';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';
import { satelliteParams, teamParams } from '../http/pathParams.ts';

const tags = ['satellites'];
const globalTokenParams = z.object({ tokenId: z.uuid({ error: 'must be a token id (UUID)' }) }).strict();
const teamTokenParams = teamParams.extend({ tokenId: z.uuid({ error: 'must be a token id (UUID)' }) }).strict();
const global = { scope: 'global' } as const;
const manageGlobal = { kind: 'permission', permission: 'satellites.manage_global' } as const;

/**
 * Satellite management for people: registration tokens (global admins for global tokens,
 * team admins for their team's, global users may generate tokens for teams they belong to), and
 * listing, status and metrics of satellites. Routes open to any session leave the scoping to the
 * registry, which answers from the caller's identity: a satellite of another team is "not found".
 */
export function satelliteAdminRoutes(bus: Bus) {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/satellites/registration-tokens',
      summary: 'Generate a single-use registration token for a global satellite (shown once)',
      tags,
      access: manageGlobal,
      body: createRegistrationTokenBody,
      response: createdRegistrationToken,
      successStatus: 201,
      handler: ({ body, identity, requestId }) =>
        bus.request(registrySubjects.createToken, { target: global, options: body }, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/satellites/registration-tokens',
      summary: 'Global registration tokens, without the tokens themselves',
      tags,
      access: manageGlobal,
      response: z.array(registrationTokenView),
      handler: ({ identity, requestId }) =>
        bus.request(registrySubjects.listTokens, { target: global }, { identity, requestId }),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/satellites/registration-tokens/:tokenId',
      summary: 'Revoke an unused global registration token',
      tags,
      access: manageGlobal,
      params: globalTokenParams,
      response: registrationTokenView,
      handler: ({ params, identity, requestId }) =>
        bus.request(
          registrySubjects.revokeToken,
          { target: global, token_id: params.tokenId },
          { identity, requestId },
        ),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/teams/:teamId/satellites/registration-tokens',
      summary: 'Generate a single-use registration token for a satellite of this team (shown once)',
      tags,
      access: { kind: 'team', permission: 'satellites.register', teamParam: 'teamId' },
      params: teamParams,
      body: createRegistrationTokenBody,
      response: createdRegistrationToken,
      successStatus: 201,
      handler: ({ params, body, identity, requestId }) =>
        bus.request(
          registrySubjects.createToken,
          { target: { scope: 'team', team_id: params.teamId }, options: body },
          { identity, requestId },
        ),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/teams/:teamId/satellites/registration-tokens',
      summary: "This team's registration tokens, without the tokens themselves",
      tags,
      access: { kind: 'team', permission: 'tokens.manage', teamParam: 'teamId' },
      params: teamParams,
      response: z.array(registrationTokenView),
      handler: ({ params, identity, requestId }) =>
        bus.request(
          registrySubjects.listTokens,
          { target: { scope: 'team', team_id: params.teamId } },
          { identity, requestId },
        ),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/teams/:teamId/satellites/registration-tokens/:tokenId',
      summary: 'Revoke an unused registration token of this team',
      tags,
      access: { kind: 'team', permission: 'tokens.manage', teamParam: 'teamId' },
      params: teamTokenParams,
      response: registrationTokenView,
      handler: ({ params, identity, requestId }) =>
        bus.request(
          registrySubjects.revokeToken,
          { target: { scope: 'team', team_id: params.teamId }, token_id: params.tokenId },
          { identity, requestId },
        ),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/satellites',
      summary: 'Satellites the caller may see: all for global admins, their teams’ otherwise',
      tags,
      access: { kind: 'session' },
      response: z.array(satelliteView),
      handler: ({ identity, requestId }) => bus.request(registrySubjects.listSatellites, {}, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/teams/:teamId/satellites',
      summary: "This team's satellites and their status",
      tags,
      access: { kind: 'team', permission: 'satellites.view', teamParam: 'teamId' },
      params: teamParams,
      response: z.array(satelliteView),
      handler: ({ params, identity, requestId }) =>
        bus.request(registrySubjects.listSatellites, { team_id: params.teamId }, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/satellites/:id',
      summary: 'One satellite and its status',
      tags,
      access: { kind: 'session' },
      params: satelliteParams,
      response: satelliteView,
      handler: ({ params, identity, requestId }) =>
        bus.request(registrySubjects.getSatellite, { satellite_id: params.id }, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/satellites/:id/metrics',
      summary: "A satellite's heartbeat metrics (newest first) and the latest metrics of each process",
      tags,
      access: { kind: 'session' },
      params: satelliteParams,
      querystring: satelliteMetricsQuery,
      response: satelliteMetrics,
      handler: ({ params, query, identity, requestId }) =>
        bus.request(registrySubjects.getMetrics, { satellite_id: params.id, query }, { identity, requestId }),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/satellites/:id',
      summary: "Revoke a satellite's API key (global admins; team admins for their team's satellites)",
      tags,
      access: { kind: 'session' },
      params: satelliteParams,
      response: satelliteView,
      handler: ({ params, identity, requestId }) =>
        bus.request(registrySubjects.revokeSatellite, { satellite_id: params.id }, { identity, requestId }),
    }),
    defineRoute({
      method: 'PUT',
      url: '/api/satellites/:id/ip-allowlist',
      summary: "Replace a team satellite's IP allowlist (addresses and CIDR blocks; empty: any address)",
      tags,
      access: { kind: 'session' },
      params: satelliteParams,
      body: updateIpAllowlistBody,
      response: satelliteView,
      handler: ({ params, body, identity, requestId }) =>
        bus.request(
          registrySubjects.updateAllowlist,
          { satellite_id: params.id, ip_allowlist: body.ip_allowlist },
          { identity, requestId },
        ),
    }),
  ];
}
