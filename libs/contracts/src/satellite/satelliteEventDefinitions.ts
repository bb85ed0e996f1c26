import { z } from 'zod';
import { defineEvent } from '../events/defineEvent.ts';
import { satelliteEventsStream } from '../events/eventStreams.ts';
import { headerNames } from '../reply.ts';
import { satelliteEventDescriptions } from './eventDescriptions.ts';
import { eventDataSchemas, type SatelliteEventType, satelliteEventTypes } from './events.ts';

/** What gateway-api stamps on every stored satellite event; consumers trust these, never the payload. */
const satelliteEventHeaders = {
  'Nats-Msg-Id': {
    description: '`<satellite_id>:<event id>`: JetStream drops a repeat inside the duplicate window',
    required: true,
  },
  [headerNames.satelliteId]: { description: 'The authenticated satellite that sent the event', required: true },
  [headerNames.teamId]: { description: 'The team of a team satellite; absent for a global satellite' },
  [headerNames.requestId]: { description: 'The HTTP request that carried the batch' },
};

function satelliteEvent<T extends SatelliteEventType>(type: T) {
  return defineEvent({
    subject: `evt.satellite.{satellite_id}.${type}` as `evt.satellite.{satellite_id}.${T}`,
    stream: satelliteEventsStream,
    producer: 'gateway-api',
    // The installations service records every MCP event; configuration events are kept for operators.
    consumers: type.startsWith('mcp.') ? ['installations'] : [],
    description: `${satelliteEventDescriptions[type].emittedWhen} Sent by satellites in batches to POST /api/satellites/{satellite_id}/events; gateway-api stores each valid event.`,
    payload: z.object({
      id: z.uuid().meta({ description: 'Client event id, generated once by the satellite; retries reuse it' }),
      type: z.literal(type),
      timestamp: z.iso.datetime({ offset: true }),
      data: eventDataSchemas[type],
    }),
    headers: satelliteEventHeaders,
  });
}

type SatelliteEventDefinitions = { [T in SatelliteEventType]: ReturnType<typeof satelliteEvent<T>> };

/**
 * One event per satellite event type, `evt.satellite.<satellite_id>.<type>` (the type keeps its dots),
 * each stored with its satellite in the subject and in a header.
 */
export const satelliteEvents = Object.fromEntries(
  satelliteEventTypes.map((type) => [type, satelliteEvent(type)]),
) as SatelliteEventDefinitions;

/** The events the MCP side of a satellite emits: what the installations service consumes. */
export const mcpSatelliteEvents = satelliteEventTypes
  .filter((type) => type.startsWith('mcp.'))
  .map((type) => satelliteEvents[type]);
