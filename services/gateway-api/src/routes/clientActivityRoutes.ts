import { authorizeRequest } from '@orbital/access';
import type { Bus } from '@orbital/bus';
import {
  type ClientActivityPage,
  type ClientActivityQuery,
  clientActivityQuery,
  clientActivityRecordedEvent,
  installationSubjects as s,
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { alreadyInSnapshot, skipMessage } from '@orbital/sse';
import { relayTable, subjectTable } from '../http/proxyRoute.ts';
import { inClientActivityScope } from './liveFilters.ts';
import { type StreamSettings, serveRouteStream, streamResponse } from './streamRouteOptions.ts';

const path = '/api/users/me/mcp/client-activity';

/**
 * Recent MCP client sessions and their stream. Scope: the sessions of the caller's teams, any role; a
 * global admin sees all, sessions of no team included. One rule for both: the subject's declared
 * access, which the installations service enforces and the stream applies to live events.
 */
export function clientActivityRoutes(bus: Bus, logger: Logger, settings: StreamSettings) {
  const relay = relayTable(bus, ['users']);
  const serve = subjectTable(bus, ['users']);
  const toRequest = ({ query }: { query: ClientActivityQuery }) => ({ query });
  return [
    relay(
      s.listClientActivity,
      `GET ${path}`,
      "Recent MCP client sessions of the caller's teams, newest first (global admins: all)",
      { querystring: clientActivityQuery, toRequest },
    ),
    serve(
      s.listClientActivity,
      `GET ${path}/stream`,
      'Live MCP client sessions (SSE); same query and scope as /client-activity',
      {
        querystring: clientActivityQuery,
        response: streamResponse,
        toRequest,
        async handler(input, send) {
          const { query, identity } = input;
          // The teams whose sessions the caller sees, by the rule the snapshot is answered by (already
          // judged for this request: this reads its scope).
          const teams = authorizeRequest(s.listClientActivity.access, identity, { query }).teams();
          return serveRouteStream({ bus, logger, settings }, input, 'client-activity/stream', {
            event: clientActivityRecordedEvent,
            // One team: a server-side filter; several teams or all: every team's subject, filtered below.
            ...(teams?.length === 1 && teams[0] ? { tokens: { team_id: teams[0] } } : {}),
            snapshot: (): Promise<ClientActivityPage> => send(),
            update({ session }, { sent }) {
              if (!inClientActivityScope(session, teams)) return skipMessage;
              const known = sent?.items.find(
                (item) => item.satellite_id === session.satellite_id && item.session_id === session.session_id,
              );
              if (known && Date.parse(known.updated_at) >= Date.parse(session.updated_at)) return alreadyInSnapshot;
              return { items: [session] };
            },
          });
        },
      },
    ),
  ];
}
