import type { Bus } from '@orbital/bus';
import {
  type InstallationStatusView,
  installationEventsStream,
  installationLogAppended,
  installationLogSubject,
  installationRequestLogged,
  installationRequestSubject,
  installationStatusChanged,
  installationStatusChangedSubjectName,
  isAvailableStatus,
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
import { installationParams, installationsPath } from './installationRoutes.ts';
import { type StreamSettings, streamResponse, streamRouteOptions } from './streamRouteOptions.ts';

/**
 * The SSE twins of status, logs and requests (spec "Streaming convention"): same path plus `/stream`,
 * same query and access, the REST twin's data as the `snapshot`, then `update` events from JetStream.
 */
export function installationStreamRoutes(bus: Bus, logger: Logger, settings: StreamSettings) {
  const common = (input: RouteInput<unknown, unknown, unknown>, route: string) =>
    streamRouteOptions(bus, logger, settings, input, route, installationEventsStream.name);
  const access = { kind: 'team', permission: 'installations.view', teamParam: 'teamId' } as const;

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
        await serveEventStream<InstallationStatusView>({
          ...common(input, 'status/stream'),
          // Status changes are rare; one subject for all, filtered here by installation.
          filterSubject: installationStatusChangedSubjectName,
          snapshot: () => bus.request(s.getStatus, ref, { identity, requestId }),
          update(payload, { sent }) {
            const event = installationStatusChanged.safeParse(payload);
            if (!event.success || event.data.installation_id !== params.installationId) return skipMessage;
            const e = event.data;
            if (sent && Date.parse(e.status_updated_at) <= Date.parse(sent.status_updated_at)) return alreadyInSnapshot;
            return {
              installation_id: e.installation_id,
              team_id: e.team_id,
              status: e.status,
              status_message: e.status_message,
              status_updated_at: e.status_updated_at,
              last_health_check_at: e.last_health_check_at,
              last_credential_check_at: e.last_credential_check_at,
              available: isAvailableStatus(e.status),
            } satisfies InstallationStatusView;
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
        await serveEventStream<ServerLogPage>({
          ...common(input, 'logs/stream'),
          filterSubject: installationLogSubject(params.installationId),
          snapshot: () => bus.request(s.listLogs, { ...ref, query }, { identity, requestId }),
          update(payload, { sent }) {
            const event = installationLogAppended.safeParse(payload);
            if (!event.success) return skipMessage;
            const known = new Set(sent?.items.map((line) => line.id));
            const fresh = event.data.lines.filter((line) => !known.has(line.id));
            if (fresh.length === 0 && event.data.lines.length > 0 && known.size > 0) return alreadyInSnapshot;
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
        await serveEventStream<RequestLogPage>({
          ...common(input, 'requests/stream'),
          filterSubject: installationRequestSubject(params.installationId),
          snapshot: () => bus.request(s.listRequests, { ...ref, query }, { identity, requestId }),
          update(payload, { current, sent }) {
            const event = installationRequestLogged.safeParse(payload);
            if (!event.success) return skipMessage;
            const row = event.data.request;
            if (sent?.items.some((item) => item.id === row.id)) return alreadyInSnapshot;
            if (!matchesRequestLogQuery(row, query)) return skipMessage;
            // As on the REST twin: no response data while request logging is off.
            const { tool_response, ...rest } = row;
            const item = current.request_logging_enabled && tool_response !== undefined ? row : rest;
            return { items: [item] };
          },
        });
        return undefined as never;
      },
    }),
  ];
}
