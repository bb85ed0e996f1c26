import type { Bus } from '@orbital/bus';
import {
  type InstallationStatusView,
  installationLogAppendedEvent,
  installationRequestLoggedEvent,
  installationStatusChangedEvent,
  installationStatusView,
  type RequestLogPage,
  requestLogQuery,
  type ServerLogPage,
  installationSubjects as s,
  serverLogQuery,
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { alreadyInSnapshot, skipMessage } from '@orbital/sse';
import { installationOf, installationParams } from '../http/pathParams.ts';
import { subjectTable } from '../http/proxyRoute.ts';
import { installationAndQuery, installationsPath } from './installationRoutes.ts';
import { matchesRequestLogQuery, matchesServerLogQuery } from './liveFilters.ts';
import { type StreamSettings, serveRouteStream, streamResponse } from './streamRouteOptions.ts';

/**
 * The SSE twins of status, logs and requests: same path plus `/stream`, same query, and the access of the
 * subject whose answer is the `snapshot`; then `update` events from JetStream.
 */
export function installationStreamRoutes(bus: Bus, logger: Logger, settings: StreamSettings) {
  const serve = subjectTable(bus, ['installations']);
  const shared = { bus, logger, settings };

  return [
    serve(s.getStatus, `GET ${installationsPath}/status/stream`, 'Live status of the installation (SSE)', {
      params: installationParams,
      response: streamResponse,
      toRequest: installationOf,
      async handler(input, send) {
        return serveRouteStream(shared, input, 'status/stream', {
          event: installationStatusChangedEvent,
          tokens: installationOf(input),
          snapshot: (): Promise<InstallationStatusView> => send(),
          update(change, { sent }) {
            if (sent && Date.parse(change.status_updated_at) <= Date.parse(sent.status_updated_at)) {
              return alreadyInSnapshot;
            }
            // The change carries the status as the REST twin shows it; the rest is the change's own.
            return installationStatusView.parse(change);
          },
        });
      },
    }),
    serve(
      s.listLogs,
      `GET ${installationsPath}/logs/stream`,
      'Live server logs of the installation (SSE); same query as /logs',
      {
        params: installationParams,
        querystring: serverLogQuery,
        response: streamResponse,
        toRequest: installationAndQuery,
        async handler(input, send) {
          const { params, query } = input;
          return serveRouteStream(shared, input, 'logs/stream', {
            event: installationLogAppendedEvent,
            tokens: { installation_id: params.installationId },
            snapshot: (): Promise<ServerLogPage> => send(),
            update(appended, { sent }) {
              const known = new Set(sent?.items.map((line) => line.id));
              const fresh = appended.lines.filter((line) => !known.has(line.id));
              if (fresh.length === 0 && appended.lines.length > 0 && known.size > 0) return alreadyInSnapshot;
              const items = fresh.filter((line) => matchesServerLogQuery(line, query)).reverse();
              return items.length > 0 ? { items } : skipMessage;
            },
          });
        },
      },
    ),
    serve(
      s.listRequests,
      `GET ${installationsPath}/requests/stream`,
      'Live tool executions of the installation (SSE); same query as /requests',
      {
        params: installationParams,
        querystring: requestLogQuery,
        response: streamResponse,
        toRequest: installationAndQuery,
        async handler(input, send) {
          const { params, query } = input;
          return serveRouteStream(shared, input, 'requests/stream', {
            event: installationRequestLoggedEvent,
            tokens: { installation_id: params.installationId },
            snapshot: (): Promise<RequestLogPage> => send(),
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
        },
      },
    ),
  ];
}
