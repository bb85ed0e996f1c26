import { publishJson } from '@orbital/bus';
import { type ClientActivityRecorded, clientActivitySubject, type SatelliteEvent } from '@orbital/contracts';
import { recordClientConnected, recordClientDisconnected } from '../db/clientSessionQueries.ts';
import type { SatelliteEventDeps } from './handleSatelliteEvent.ts';

type ClientEvent = Extract<SatelliteEvent, { type: 'mcp.client.connected' | 'mcp.client.disconnected' }>;

/** The satellite that sent an event, as gateway-api stamped it on the message (never the payload's claim). */
export type EventSource = { satelliteId: string | null; teamId: string | null };

/**
 * Records a client connection or disconnection and publishes the session as it now stands, after
 * commit, under a message id derived from the satellite's event id (a redelivery is stored once).
 * A team satellite speaks for its own team only: its header team wins over the team the event names,
 * so it cannot place a session in another team's activity.
 */
export async function storeClientSession(deps: SatelliteEventDeps, event: ClientEvent, source: EventSource) {
  if (!source.satelliteId) {
    deps.logger.warn({ eventId: event.id }, 'client event without its satellite header ignored');
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
    event.type === 'mcp.client.connected'
      ? await recordClientConnected(db, key, {
          clientType: event.data.client_type,
          userAgent: event.data.user_agent,
          transport: event.data.transport,
        })
      : await recordClientDisconnected(db, key, {
          durationSeconds: event.data.connection_duration_seconds,
          toolExecutionCount: event.data.tool_execution_count,
          reason: event.data.disconnect_reason,
        });
  const recorded: ClientActivityRecorded = { session };
  await publishJson(deps.bus, clientActivitySubject(session.team_id), recorded, { msgId: `client-${event.id}` });
}
