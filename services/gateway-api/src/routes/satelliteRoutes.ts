import type { Bus } from '@orbital/bus';
import {
  commandPollAnswer,
  commandPollQuery,
  commandResult,
  createCommandRequest,
  heartbeatBody,
  registerSatelliteBody,
  registrySubjects as s,
} from '@orbital/contracts';
import { satelliteOf, satelliteParams } from '../http/pathParams.ts';
import { relayTable, subjectTable } from '../http/proxyRoute.ts';
import type { CommandWakeups } from '../satellites/createCommandWakeups.ts';

/**
 * The routes satellites call: registration with a registration token, then everything else with the
 * satellite's API key on its own id only (each subject's access says who else may: a global admin reads
 * the queue and the configuration, and queues commands).
 */
export function satelliteRoutes(bus: Bus, wakeups: CommandWakeups) {
  const relay = relayTable(bus, ['satellites']);
  const serve = subjectTable(bus, ['satellites']);
  return [
    relay(
      s.register,
      'POST /api/satellites/register',
      'Register a satellite with a registration token (Authorization: Bearer service_satellite_<token>)',
      {
        // The token is checked by the registry, which owns the tokens; the header travels to it untouched.
        body: registerSatelliteBody,
        successStatus: 201,
        toRequest: ({ body, request }) => ({
          authorization: request.headers.authorization ?? null,
          client_ip: request.ip,
          body,
        }),
      },
    ),
    serve(
      s.pollCommands,
      'GET /api/satellites/:id/commands',
      'Poll: lease pending commands (priority, then age) and learn when to poll next; with wait_ms, held until a command arrives. A global admin (session) sees what the next poll would get, nothing leased',
      {
        params: satelliteParams,
        querystring: commandPollQuery,
        response: commandPollAnswer,
        toRequest: ({ params, query }) => ({ satellite_id: params.id, limit: query.limit }),
        async handler({ params, query, reply }, poll) {
          if (query.wait_ms === 0) return { ...(await poll()), settings_changed_at: wakeups.settingsChangedAt() };
          // Listening starts before the first look, so a command created in between still wakes the poll.
          const waiter = wakeups.register(params.id);
          try {
            const first = await poll();
            const held = { long_poll_ms: query.wait_ms };
            if (first.commands.length > 0)
              return { ...first, ...held, settings_changed_at: wakeups.settingsChangedAt() };
            const gone = new AbortController();
            reply.raw.once('close', () => gone.abort());
            const reason = await waiter.wait(query.wait_ms, gone.signal);
            const answer = reason === 'command' ? await poll() : first;
            return { ...answer, ...held, settings_changed_at: wakeups.settingsChangedAt() };
          } finally {
            waiter.cancel();
          }
        },
      },
    ),
    relay(s.createCommand, 'POST /api/satellites/:id/commands', 'Queue a command for this satellite (global admins)', {
      params: satelliteParams,
      body: createCommandRequest.omit({ satellite_id: true }),
      successStatus: 201,
      toRequest: ({ params, body }) => ({ ...body, satellite_id: params.id }),
    }),
    relay(
      s.heartbeat,
      'POST /api/satellites/:id/heartbeat',
      'Report status and metrics (every 30 seconds); the first heartbeat activates the satellite',
      {
        params: satelliteParams,
        body: heartbeatBody,
        toRequest: ({ params, body }) => ({ satellite_id: params.id, heartbeat: body }),
      },
    ),
    relay(
      s.reportResult,
      'POST /api/satellites/:id/command-results',
      "Report a command's progress or result (idempotent by command id and status)",
      {
        params: satelliteParams,
        body: commandResult,
        toRequest: ({ params, body }) => ({ satellite_id: params.id, result: body }),
      },
    ),
    relay(
      s.getConfiguration,
      'GET /api/satellites/:id/config',
      'The merged configuration of the MCP servers this satellite runs (to a global admin with a session: environment and header values masked)',
      { params: satelliteParams, toRequest: satelliteOf },
    ),
  ];
}
