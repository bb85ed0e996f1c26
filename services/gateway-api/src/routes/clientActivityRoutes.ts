import type { Bus } from '@orbital/bus';
import {
  type ClientActivityPage,
  clientActivityAllSubjects,
  clientActivityPage,
  clientActivityQuery,
  clientActivityRecorded,
  clientActivityScope,
  clientActivitySubject,
  inClientActivityScope,
  installationEventsStream,
  installationSubjects,
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { alreadyInSnapshot, serveEventStream, skipMessage } from '@orbital/sse';
import { defineRoute } from '../http/defineRoute.ts';
import { type StreamSettings, streamResponse, streamRouteOptions } from './streamRouteOptions.ts';

const path = '/api/users/me/mcp/client-activity';

/**
 * Recent MCP client sessions (spec "Streaming convention" 4) and their stream. Scope: the sessions of
 * the caller's teams, any role; a global admin sees all, sessions of no team included (libs/contracts
 * clientActivityScope, applied by the installations service and, on live events, by the stream).
 */
export function clientActivityRoutes(bus: Bus, logger: Logger, settings: StreamSettings) {
  return [
    defineRoute({
      method: 'GET',
      url: path,
      summary: "Recent MCP client sessions of the caller's teams, newest first (global admins: all)",
      tags: ['users'],
      access: { kind: 'session' },
      querystring: clientActivityQuery,
      response: clientActivityPage,
      handler: ({ query, identity, requestId }) =>
        bus.request(installationSubjects.listClientActivity, { query }, { identity, requestId }),
    }),
    defineRoute({
      method: 'GET',
      url: `${path}/stream`,
      summary: 'Live MCP client sessions (SSE); same query and scope as /client-activity',
      tags: ['users'],
      access: { kind: 'session' },
      querystring: clientActivityQuery,
      response: streamResponse,
      async handler(input) {
        const { query, identity, requestId } = input;
        const scope = clientActivityScope(identity, query);
        const teams = 'teams' in scope ? scope.teams : [];
        await serveEventStream<ClientActivityPage>({
          ...streamRouteOptions(bus, logger, settings, input, 'client-activity/stream', installationEventsStream.name),
          // One team: a server-side filter; several teams or all: every team's subject, filtered below.
          filterSubject: teams?.length === 1 && teams[0] ? clientActivitySubject(teams[0]) : clientActivityAllSubjects,
          // The REST twin, which also refuses a caller out of scope before the stream opens.
          snapshot: () => bus.request(installationSubjects.listClientActivity, { query }, { identity, requestId }),
          update(payload, { sent }) {
            const event = clientActivityRecorded.safeParse(payload);
            if (!event.success || !inClientActivityScope(event.data.session, teams)) return skipMessage;
            const { session } = event.data;
            const known = sent?.items.find(
              (item) => item.satellite_id === session.satellite_id && item.session_id === session.session_id,
            );
            if (known && Date.parse(known.updated_at) >= Date.parse(session.updated_at)) return alreadyInSnapshot;
            return { items: [session] };
          },
        });
        return undefined as never;
      },
    }),
  ];
}
