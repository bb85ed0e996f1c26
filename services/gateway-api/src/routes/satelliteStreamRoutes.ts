import { authorizeRequest } from '@orbital/access';
import type { Bus } from '@orbital/bus';
import {
  registrySubjects,
  type SatelliteMetrics,
  satelliteHeartbeatRecordedEvent,
  satelliteMetricsQuery,
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { alreadyInSnapshot } from '@orbital/sse';
import { satelliteParams } from '../http/pathParams.ts';
import { subjectTable } from '../http/proxyRoute.ts';
import { type StreamSettings, serveRouteStream, streamResponse } from './streamRouteOptions.ts';

/**
 * The SSE twin of GET /api/satellites/:id/metrics: same query and access (the snapshot is that route's
 * answer, so a satellite the caller may not see is a 404 before any byte), then one `update` per stored
 * heartbeat, `{ heartbeats: [point], processes }`: the new point to put before the series, and the
 * process rows that heartbeat replaced (matched by process_id). `limit` and `since` bound the snapshot;
 * live points are always newer than both.
 */
export function satelliteStreamRoutes(bus: Bus, logger: Logger, settings: StreamSettings) {
  const serve = subjectTable(bus, ['satellites']);
  return [
    serve(
      registrySubjects.getMetrics,
      'GET /api/satellites/:id/metrics/stream',
      'Live heartbeat metrics of a satellite (SSE); same query as /metrics',
      {
        params: satelliteParams,
        querystring: satelliteMetricsQuery,
        response: streamResponse,
        toRequest: ({ params, query }) => ({ satellite_id: params.id, query }),
        async handler(input, send) {
          const { params, identity } = input;
          // The teams whose processes the caller sees, by the rule the registry applies to the snapshot
          // (already judged for this request: this reads its scope).
          const teams = authorizeRequest(registrySubjects.getMetrics.access, identity, {
            satellite_id: params.id,
          }).teams();
          return serveRouteStream({ bus, logger, settings }, input, 'satellites/metrics/stream', {
            event: satelliteHeartbeatRecordedEvent,
            tokens: { satellite_id: params.id },
            snapshot: (): Promise<SatelliteMetrics> => send(),
            update(recorded, { sent }) {
              const newest = sent?.heartbeats[0];
              const at = Date.parse(recorded.heartbeat.received_at);
              if (newest && at <= Date.parse(newest.received_at)) return alreadyInSnapshot;
              // As the snapshot does: a global satellite's processes of other teams are not the caller's.
              const processes =
                recorded.team_id === null && teams !== null
                  ? recorded.processes.filter((p) => teams.includes(p.team_id))
                  : recorded.processes;
              return { heartbeats: [recorded.heartbeat], processes };
            },
          });
        },
      },
    ),
  ];
}
