import type { Bus } from '@orbital/bus';
import {
  type CallerIdentity,
  heartbeatEventsStream,
  registrySubjects,
  type SatelliteMetrics,
  satelliteHeartbeatRecorded,
  satelliteHeartbeatSubject,
  satelliteMetricsQuery,
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { alreadyInSnapshot, serveEventStream, skipMessage } from '@orbital/sse';
import { defineRoute } from '../http/defineRoute.ts';
import { satelliteParams } from './satelliteRoutes.ts';
import { type StreamSettings, streamResponse, streamRouteOptions } from './streamRouteOptions.ts';

/**
 * The SSE twin of GET /api/satellites/:id/metrics: same query and access (the snapshot is that route's
 * answer, so a satellite the caller may not see is a 404 before any byte), then one `update` per stored
 * heartbeat, `{ heartbeats: [point], processes }`: the new point to put before the series, and the
 * process rows that heartbeat replaced (matched by process_id). `limit` and `since` bound the snapshot;
 * live points are always newer than both.
 */
/** Whether the caller may see a team's records: global admins every team's, members their teams'. */
function seesTeam(identity: CallerIdentity, teamId: string): boolean {
  if (identity.kind !== 'user') return false;
  return identity.globalRole === 'global_admin' || identity.memberships.some((m) => m.teamId === teamId);
}

export function satelliteStreamRoutes(bus: Bus, logger: Logger, settings: StreamSettings) {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/satellites/:id/metrics/stream',
      summary: 'Live heartbeat metrics of a satellite (SSE); same query as /metrics',
      tags: ['satellites'],
      access: { kind: 'session' },
      params: satelliteParams,
      querystring: satelliteMetricsQuery,
      response: streamResponse,
      async handler(input) {
        const { params, query, identity, requestId } = input;
        await serveEventStream<SatelliteMetrics>({
          ...streamRouteOptions(bus, logger, settings, input, 'satellites/metrics/stream', heartbeatEventsStream.name),
          filterSubject: satelliteHeartbeatSubject(params.id),
          snapshot: () =>
            bus.request(registrySubjects.getMetrics, { satellite_id: params.id, query }, { identity, requestId }),
          update(payload, { sent }) {
            const event = satelliteHeartbeatRecorded.safeParse(payload);
            if (!event.success || event.data.satellite_id !== params.id) return skipMessage;
            const newest = sent?.heartbeats[0];
            const at = Date.parse(event.data.heartbeat.received_at);
            if (newest && at <= Date.parse(newest.received_at)) return alreadyInSnapshot;
            // As the snapshot does: a global satellite's processes of other teams are not the caller's.
            const processes =
              event.data.team_id === null
                ? event.data.processes.filter((p) => seesTeam(identity, p.team_id))
                : event.data.processes;
            return { heartbeats: [event.data.heartbeat], processes };
          },
        });
        return undefined as never;
      },
    }),
  ];
}
