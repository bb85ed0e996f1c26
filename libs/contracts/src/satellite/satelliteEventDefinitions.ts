import { z } from 'zod';
import { defineEvent } from '../events/defineEvent.ts';
import { defineEventBatch } from '../events/defineEventBatch.ts';
import { satelliteEventsStream } from '../events/eventStreams.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { headerNames } from '../reply.ts';
import { maxEventsPerBatch } from './eventBatch.ts';
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

/** The MCP side of a satellite emits the `mcp.*` events: what the installations service consumes. */
const isMcpEventType = (type: SatelliteEventType) => type.startsWith('mcp.');
const mcpEventTypes = satelliteEventTypes.filter(isMcpEventType);

/**
 * One definition for each satellite event type, keyed by the type. Object.fromEntries loses the link
 * between each key and its definition's type, so each caller states the map's type.
 */
function byEventType(define: (type: SatelliteEventType) => unknown): Record<SatelliteEventType, unknown> {
  return Object.fromEntries(satelliteEventTypes.map((type) => [type, define(type)])) as Record<
    SatelliteEventType,
    unknown
  >;
}

function satelliteEvent<T extends SatelliteEventType>(type: T) {
  return defineEvent({
    subject: `evt.satellite.{satellite_id}.${type}` as `evt.satellite.{satellite_id}.${T}`,
    stream: satelliteEventsStream,
    producer: 'gateway-api',
    // The installations service records every MCP event; configuration events are kept for operators.
    consumers: isMcpEventType(type) ? ['installations'] : [],
    description: `${satelliteEventDescriptions[type].emittedWhen} One event per message: what gateway-api stored before it stored batches (evt.satellite.{satellite_id}.batch.${type}); still read, so messages stored by an older gateway-api are not stranded.`,
    payload: z.object({
      id: z.uuid().meta({ description: 'Client event id, generated once by the satellite; retries reuse it' }),
      type: z.literal(type),
      timestamp: isoTimestamp,
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
export const satelliteEvents = byEventType(satelliteEvent) as SatelliteEventDefinitions;

/** The events the MCP side of a satellite emits: what the installations service consumes. */
export const mcpSatelliteEvents = mcpEventTypes.map((type) => satelliteEvents[type]);

/** What gateway-api stamps on every stored batch; consumers trust these, never the payload. */
const satelliteBatchHeaders = {
  ...satelliteEventHeaders,
  'Nats-Msg-Id': {
    description:
      '`<satellite_id>:<digest of the event ids, in order>`: the same batch sent again inside the duplicate window is dropped',
    required: true,
  },
};

function satelliteEventBatch<T extends SatelliteEventType>(type: T) {
  return defineEventBatch(satelliteEvents[type], {
    subject: `evt.satellite.{satellite_id}.batch.${type}` as `evt.satellite.{satellite_id}.batch.${T}`,
    description: `${satelliteEventDescriptions[type].emittedWhen} A run of consecutive ${type} events of one HTTP batch (POST /api/satellites/{satellite_id}/events), in the satellite's order: gateway-api stores each run of valid events as one message.`,
    maxEvents: maxEventsPerBatch,
    headers: satelliteBatchHeaders,
  });
}

type SatelliteEventBatchDefinitions = { [T in SatelliteEventType]: ReturnType<typeof satelliteEventBatch<T>> };

/**
 * One batch per satellite event type, `evt.satellite.<satellite_id>.batch.<type>`: how gateway-api
 * stores events, so a batch of 100 costs JetStream and its readers one message, not 100. A reader
 * that routes by type keeps doing so: the type is still the end of the subject.
 */
export const satelliteEventBatches = byEventType(satelliteEventBatch) as SatelliteEventBatchDefinitions;

/** The batches of MCP events (what the installations service consumes, with the single events). */
export const mcpSatelliteEventBatches = mcpEventTypes.map((type) => satelliteEventBatches[type]);
