import type { Bus } from '@orbital/bus';
import {
  type InstallationStatusView,
  installationLogAppendedEvent,
  installationRequestLoggedEvent,
  installationStatusChangedEvent,
  installationStatusView,
  matchesRequestLogQuery,
  matchesServerLogQuery,
  type RequestLogPage,
  requestLogQuery,
  type ServerLogPage,
  installationSubjects as s,
  serverLogQuery,
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { alreadyInSnapshot, serveEventStream, skipMessage } from '@orbital/sse';
import { defineRoute, type RouteInput } from '../http/defineRoute.ts';
import { installationParams } from '../http/pathParams.ts';
import { teamInPath } from '../http/routeAccess.ts';
import { installationsPath } from './installationRoutes.ts';
import { type StreamSettings, streamResponse, streamRouteOptions } from './streamRouteOptions.ts';

/**
 * The SSE twins of status, logs and requests: same path plus `/stream`,
 * same query and access, the REST twin's data as the `snapshot`, then `update` events from JetStream.
 */
export function installationStreamRoutes(bus: Bus, logger: Logger, settings: StreamSettings) {
  const common = (input: RouteInput<unknown, unknown, unknown>, route: string) =>
    streamRouteOptions(bus, logger, settings, input, route);
  const access = teamInPath('installations.view');

  return [
    defineRoute({
      method: 'GET',
      url: `${installationsPath}/status/stream`,
      summary: 'Live status of the installation (SSE)',
      tags: ['installations'],
      access,
      params: installationParams,
      response: streamResponse,
      async handler(input) {
        const { params, identity, requestId } = input;
        const ref = { team_id: params.teamId, installation_id: params.installationId };
        await serveEventStream({
          ...common(input, 'status/stream'),
          event: installationStatusChangedEvent,
          tokens: { team_id: params.teamId, installation_id: params.installationId },
          snapshot: (): Promise<InstallationStatusView> => bus.request(s.getStatus, ref, { identity, requestId }),
          update(change, { sent }) {
            if (sent && Date.parse(change.status_updated_at) <= Date.parse(sent.status_updated_at)) {
              return alreadyInSnapshot;
            }
            // The change carries the status as the REST twin shows it; the rest is the change's own.
            return installationStatusView.parse(change);
          },
        });
        return undefined as never;
      },
    }),
    defineRoute({
      method: 'GET',
      url: `${installationsPath}/logs/stream`,
      summary: 'Live server logs of the installation (SSE); same query as /logs',
      tags: ['installations'],
      access,
      params: installationParams,
      querystring: serverLogQuery,
      response: streamResponse,
      async handler(input) {
        const { params, query, identity, requestId } = input;
        const ref = { team_id: params.teamId, installation_id: params.installationId };
        await serveEventStream({
          ...common(input, 'logs/stream'),
          event: installationLogAppendedEvent,
          tokens: { installation_id: params.installationId },
          snapshot: (): Promise<ServerLogPage> => bus.request(s.listLogs, { ...ref, query }, { identity, requestId }),
          update(appended, { sent }) {
            const known = new Set(sent?.items.map((line) => line.id));
            const fresh = appended.lines.filter((line) => !known.has(line.id));
            if (fresh.length === 0 && appended.lines.length > 0 && known.size > 0) return alreadyInSnapshot;
            const items = fresh.filter((line) => matchesServerLogQuery(line, query)).reverse();
            return items.length > 0 ? { items } : skipMessage;
          },
        });
        return undefined as never;
      },
    }),
    defineRoute({
      method: 'GET',
      url: `${installationsPath}/requests/stream`,
      summary: 'Live tool executions of the installation (SSE); same query as /requests',
      tags: ['installations'],
      access,
      params: installationParams,
      querystring: requestLogQuery,
      response: streamResponse,
      async handler(input) {
        const { params, query, identity, requestId } = input;
        const ref = { team_id: params.teamId, installation_id: params.installationId };
        await serveEventStream({
          ...common(input, 'requests/stream'),
          event: installationRequestLoggedEvent,
          tokens: { installation_id: params.installationId },
          snapshot: (): Promise<RequestLogPage> =>
            bus.request(s.listRequests, { ...ref, query }, { identity, requestId }),
          update(logged, { current, sent }) {
            const known = new Set(sent?.items.map((item) => item.id));
            const fresh = logged.requests.filter((row) => !known.has(row.id));
            if (fresh.length === 0) return alreadyInSnapshot;
            // As on the REST twin: newest first, and no response data while request logging is off.
            const items = fresh
              .filter((row) => matchesRequestLogQuery(row, query))
              .map((row) => {
                const { tool_response, ...rest } = row;
                return current.request_logging_enabled && tool_response !== undefined ? row : rest;
              })
              .reverse();
            return items.length > 0 ? { items } : skipMessage;
          },
        });
        return undefined as never;
      },
    }),
  ];
}
