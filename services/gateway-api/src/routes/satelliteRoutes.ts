import type { Bus } from '@orbital/bus';
import {
  commandPollAnswer,
  commandPollQuery,
  commandResult,
  createCommandRequest,
  heartbeatBody,
  registerSatelliteBody,
  registrySubjects,
} from '@orbital/contracts';
import { defineRoute } from '../http/defineRoute.ts';
import { satelliteParams } from '../http/pathParams.ts';
import { proxyRoute } from '../http/proxyRoute.ts';
import { ownSatellite } from '../http/routeAccess.ts';
import type { CommandWakeups } from '../satellites/createCommandWakeups.ts';

/** Read routes a global admin may call with a session too: they see, they never lease or report. */
const ownOrAdmin = ownSatellite('id', 'satellites.manage_global');
const tags = ['satellites'];

/**
 * The routes satellites call: registration with a
 * registration token, then everything else with the satellite's API key on its own id only.
 */
export function satelliteRoutes(bus: Bus, wakeups: CommandWakeups) {
  return [
    proxyRoute(bus, registrySubjects.register, {
      method: 'POST',
      url: '/api/satellites/register',
      summary: 'Register a satellite with a registration token (Authorization: Bearer service_satellite_<token>)',
      tags,
      // The token is checked by the registry, which owns the tokens; the header travels to it untouched.
      body: registerSatelliteBody,
      successStatus: 201,
      toRequest: ({ body, request }) => ({
        authorization: request.headers.authorization ?? null,
        client_ip: request.ip,
        body,
      }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/satellites/:id/commands',
      summary:
        'Poll: lease pending commands (priority, then age) and learn when to poll next; with wait_ms, held until a command arrives. A global admin (session) sees what the next poll would get, nothing leased',
      tags,
      access: ownOrAdmin,
      params: satelliteParams,
      querystring: commandPollQuery,
      response: commandPollAnswer,
      async handler({ params, query, identity, requestId, reply }) {
        const poll = () =>
          bus.request(
            registrySubjects.pollCommands,
            { satellite_id: params.id, limit: query.limit },
            { identity, requestId },
          );
        if (query.wait_ms === 0) return { ...(await poll()), settings_changed_at: wakeups.settingsChangedAt() };
        // Listening starts before the first look, so a command created in between still wakes the poll.
        const waiter = wakeups.register(params.id);
        try {
          const first = await poll();
          const held = { long_poll_ms: query.wait_ms };
          if (first.commands.length > 0) return { ...first, ...held, settings_changed_at: wakeups.settingsChangedAt() };
          const gone = new AbortController();
          reply.raw.once('close', () => gone.abort());
          const reason = await waiter.wait(query.wait_ms, gone.signal);
          const answer = reason === 'command' ? await poll() : first;
          return { ...answer, ...held, settings_changed_at: wakeups.settingsChangedAt() };
        } finally {
          waiter.cancel();
        }
      },
    }),
    proxyRoute(bus, registrySubjects.createCommand, {
      method: 'POST',
      url: '/api/satellites/:id/commands',
      summary: 'Queue a command for this satellite (global admins)',
      tags,
      params: satelliteParams,
      body: createCommandRequest.omit({ satellite_id: true }),
      successStatus: 201,
      toRequest: ({ params, body }) => ({ ...body, satellite_id: params.id }),
    }),
    proxyRoute(bus, registrySubjects.heartbeat, {
      method: 'POST',
      url: '/api/satellites/:id/heartbeat',
      summary: 'Report status and metrics (every 30 seconds); the first heartbeat activates the satellite',
      tags,
      params: satelliteParams,
      body: heartbeatBody,
      toRequest: ({ params, body }) => ({ satellite_id: params.id, heartbeat: body }),
    }),
    proxyRoute(bus, registrySubjects.reportResult, {
      method: 'POST',
      url: '/api/satellites/:id/command-results',
      summary: "Report a command's progress or result (idempotent by command id and status)",
      tags,
      params: satelliteParams,
      body: commandResult,
      toRequest: ({ params, body }) => ({ satellite_id: params.id, result: body }),
    }),
    proxyRoute(bus, registrySubjects.getConfiguration, {
      method: 'GET',
      url: '/api/satellites/:id/config',
      summary:
        'The merged configuration of the MCP servers this satellite runs (to a global admin with a session: environment and header values masked)',
      tags,
      params: satelliteParams,
      toRequest: ({ params }) => ({ satellite_id: params.id }),
    }),
  ];
}
