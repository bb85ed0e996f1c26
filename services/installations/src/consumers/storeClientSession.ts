import { publishEvent } from '@orbital/bus';
import { type ClientActivityRecorded, clientActivityRecordedEvent, type SatelliteEvent } from '@orbital/contracts';
import { recordClientActivity, recordClientConnected, recordClientDisconnected } from '../db/clientSessionQueries.ts';
import type { EventSource, SatelliteEventDeps } from './satelliteEventDeps.ts';

type ClientEvent = Extract<
  SatelliteEvent,
  { type: 'mcp.client.connected' | 'mcp.client.activity' | 'mcp.client.disconnected' }
>;

/**
 * Records a client connection or disconnection and publishes the session as it now stands, after
 * commit, under a message id derived from the satellite's event id (a redelivery is stored once).
 * A team satellite speaks for its own team only: its header team wins over the team the event names,
 * so it cannot place a session in another team's activity.
 */
export async function storeClientSession(deps: SatelliteEventDeps, event: ClientEvent, source: EventSource) {
  if (!source.satelliteId) {
    deps.logger.warn({ event_id: event.id }, 'client event without its satellite header ignored');
    return;
  }
  const key = {
    satelliteId: source.satelliteId,
    sessionId: event.data.session_id,
    teamId: source.teamId ?? event.data.team_id,
    at: event.timestamp,
  };
  const db = deps.pool.get();
  const session =
    event.type === 'mcp.client.activity'
      ? await recordClientActivity(db, key, { toolExecutionCount: event.data.tool_execution_count })
      : event.type === 'mcp.client.connected'
        ? await recordClientConnected(db, key, {
            clientType: event.data.client_type,
            clientName: event.data.client_name ?? null,
            clientVersion: event.data.client_version ?? null,
            userAgent: event.data.user_agent,
            transport: event.data.transport,
          })
        : await recordClientDisconnected(db, key, {
            durationSeconds: event.data.connection_duration_seconds,
            toolExecutionCount: event.data.tool_execution_count,
            reason: event.data.disconnect_reason,
          });
  const recorded: ClientActivityRecorded = { session };
  await publishEvent(deps.bus, clientActivityRecordedEvent, recorded, { msgId: `client-${event.id}` });
}
