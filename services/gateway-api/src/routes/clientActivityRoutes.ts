import { authorizeRequest } from '@orbital/access';
import type { Bus } from '@orbital/bus';
import {
  type ClientActivityPage,
  clientActivityQuery,
  clientActivityRecordedEvent,
  inClientActivityScope,
  installationSubjects,
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { alreadyInSnapshot, serveEventStream, skipMessage } from '@orbital/sse';
import { defineRoute } from '../http/defineRoute.ts';
import { proxyRoute } from '../http/proxyRoute.ts';
import { signedIn } from '../http/routeAccess.ts';
import { type StreamSettings, streamResponse, streamRouteOptions } from './streamRouteOptions.ts';

const path = '/api/users/me/mcp/client-activity';

/**
 * Recent MCP client sessions and their stream. Scope: the sessions of the caller's teams, any role; a
 * global admin sees all, sessions of no team included. One rule for both: the subject's declared
 * access, which the installations service enforces and the stream applies to live events.
 */
export function clientActivityRoutes(bus: Bus, logger: Logger, settings: StreamSettings) {
  return [
    proxyRoute(bus, installationSubjects.listClientActivity, {
      method: 'GET',
      url: path,
      summary: "Recent MCP client sessions of the caller's teams, newest first (global admins: all)",
      tags: ['users'],
      querystring: clientActivityQuery,
      toRequest: ({ query }) => ({ query }),
    }),
    defineRoute({
      method: 'GET',
      url: `${path}/stream`,
      summary: 'Live MCP client sessions (SSE); same query and scope as /client-activity',
      tags: ['users'],
      access: signedIn,
      querystring: clientActivityQuery,
      response: streamResponse,
      async handler(input) {
        const { query, identity, requestId } = input;
        // Refuses a caller out of scope before the stream opens, as the REST twin does.
        const teams = authorizeRequest(installationSubjects.listClientActivity.access, identity, { query }).teams();
        await serveEventStream({
          ...streamRouteOptions(bus, logger, settings, input, 'client-activity/stream'),
          event: clientActivityRecordedEvent,
          // One team: a server-side filter; several teams or all: every team's subject, filtered below.
          ...(teams?.length === 1 && teams[0] ? { tokens: { team_id: teams[0] } } : {}),
          snapshot: (): Promise<ClientActivityPage> =>
            bus.request(installationSubjects.listClientActivity, { query }, { identity, requestId }),
          update({ session }, { sent }) {
            if (!inClientActivityScope(session, teams)) return skipMessage;
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
