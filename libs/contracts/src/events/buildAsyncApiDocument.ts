import { z } from 'zod';
import { headerNames } from '../reply.ts';
import { satelliteEventDescriptions } from '../satellite/eventDescriptions.ts';
import { eventDataSchemas, type SatelliteEventType, satelliteEventTypes } from '../satellite/events.ts';
import { domainEvents } from './domainEvents.ts';
import { parkedEventsStream, parkedHeaderNames, type StreamDefinition, satelliteEventsStream } from './eventStreams.ts';

type JsonObject = Record<string, unknown>;

/** AsyncAPI schemas are a superset of JSON Schema draft 7; the `$schema` key is dropped as noise. */
function jsonSchema(schema: z.ZodType): JsonObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', unrepresentable: 'any' });
  return rest;
}

/** Channel and message ids must be `[A-Za-z0-9_-]`; subjects keep their dots. */
const idOf = (subject: string) => subject.replace(/[^A-Za-z0-9_-]/g, '_');

function streamExtension(def: StreamDefinition): JsonObject {
  return {
    name: def.name,
    owner: def.owner,
    retention: 'limits',
    storage: 'file',
    discard: def.discard,
    max_age_ms: def.maxAgeMs,
    max_bytes: def.maxBytes,
    max_message_bytes: def.maxMessageBytes,
    duplicate_window_ms: def.duplicateWindowMs,
  };
}

const headerSchema = (properties: Record<string, string>, required: string[] = []): JsonObject => ({
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(properties).map(([name, description]) => [name, { type: 'string', description }]),
  ),
  ...(required.length ? { required } : {}),
});

const satelliteHeaders = headerSchema(
  {
    'Nats-Msg-Id': '`<satellite_id>:<event id>`: JetStream drops a repeat inside the duplicate window',
    [headerNames.satelliteId]: 'The authenticated satellite that sent the event',
    [headerNames.teamId]: 'The team of a team satellite; absent for a global satellite',
    [headerNames.requestId]: 'The HTTP request that carried the batch',
  },
  ['Nats-Msg-Id', headerNames.satelliteId],
);

function satelliteEventSchema(type: SatelliteEventType): z.ZodType {
  return z.object({
    id: z.uuid().meta({ description: 'Client event id, generated once by the satellite; retries reuse it' }),
    type: z.literal(type),
    timestamp: z.iso.datetime({ offset: true }),
    data: eventDataSchemas[type],
  });
}

/**
 * The AsyncAPI 3.1 document of every event subject, built from the catalogue in libs/contracts so the
 * reference cannot drift from the code (`npm run asyncapi` writes docs/asyncapi.json; a test fails when
 * the checked-in file is stale). Subjects are shown without the deployment prefix.
 */
export function buildAsyncApiDocument(): JsonObject {
  const channels: JsonObject = {};
  const operations: JsonObject = {};
  const messages: JsonObject = {};

  for (const type of satelliteEventTypes) {
    const id = idOf(`satellite.${type}`);
    const { emittedWhen, origin } = satelliteEventDescriptions[type];
    messages[id] = {
      name: type,
      title: type,
      summary: emittedWhen,
      ...(origin === 'ours' ? { description: 'Defined by Orbital: the specification does not show this type.' } : {}),
      contentType: 'application/json',
      headers: satelliteHeaders,
      payload: jsonSchema(satelliteEventSchema(type)),
      'x-origin': origin,
    };
    channels[id] = {
      address: `evt.satellite.{satellite_id}.${type}`,
      title: type,
      description: `${emittedWhen} Sent by satellites in batches to POST /api/satellites/{satellite_id}/events; gateway-api publishes each valid event here.`,
      parameters: { satellite_id: { description: 'Id of the satellite that emitted the event' } },
      messages: { [id]: { $ref: `#/components/messages/${id}` } },
      'x-jetstream-stream': streamExtension(satelliteEventsStream),
    };
    operations[`publish_${id}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      summary: `gateway-api stores a satellite's ${type} event`,
      messages: [{ $ref: `#/channels/${id}/messages/${id}` }],
    };
  }

  for (const event of domainEvents) {
    const id = idOf(event.subject);
    messages[id] = {
      name: event.subject,
      title: event.subject,
      summary: event.description,
      contentType: 'application/json',
      payload: jsonSchema(event.payload),
    };
    channels[id] = {
      address: event.subject,
      title: event.subject,
      description: `${event.description} Published by ${event.producer}.`,
      messages: { [id]: { $ref: `#/components/messages/${id}` } },
      'x-jetstream-stream': streamExtension(event.stream),
    };
    operations[`publish_${id}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      summary: `${event.producer} publishes ${event.subject}`,
      messages: [{ $ref: `#/channels/${id}/messages/${id}` }],
    };
  }

  messages.parked = {
    name: 'parked',
    title: 'Parked message',
    summary: 'A message a durable consumer gave up on after its last attempt, with its original bytes.',
    headers: headerSchema(
      {
        [parkedHeaderNames.subject]: 'Original subject, without the deployment prefix',
        [parkedHeaderNames.stream]: 'Stream the original was read from',
        [parkedHeaderNames.sequence]: 'Sequence of the original in that stream',
        [parkedHeaderNames.durable]: 'The durable consumer that parked it',
        [parkedHeaderNames.attempts]: 'Delivery attempts made',
        [parkedHeaderNames.error]: 'Why the last attempt failed',
        [parkedHeaderNames.parkedAt]: 'When it was parked (ISO 8601)',
      },
      Object.values(parkedHeaderNames),
    ),
    payload: { description: 'The original payload, unchanged' },
  };
  channels.parked = {
    address: 'parked.{durable}',
    title: 'Parked messages',
    description:
      'Poison messages of each durable consumer, kept to be read (libs/bus listParked) and replayed once the cause is fixed (replayParked).',
    parameters: { durable: { description: 'Name of the durable consumer' } },
    messages: { parked: { $ref: '#/components/messages/parked' } },
    'x-jetstream-stream': streamExtension(parkedEventsStream),
  };
  operations.park = {
    action: 'send',
    channel: { $ref: '#/channels/parked' },
    summary: 'A durable consumer (libs/bus consumeDurable) parks a message after its last attempt',
    messages: [{ $ref: '#/channels/parked/messages/parked' }],
  };

  return {
    asyncapi: '3.1.0',
    info: {
      title: 'Orbital events',
      version: '0.1.0',
      description:
        'Every event subject of the platform on NATS JetStream. Subjects are shown without the deployment prefix ' +
        '(NATS_SUBJECT_PREFIX): with a prefix `p`, `evt.satellite.x.config.refreshed` is `p.evt.satellite.x.config.refreshed` ' +
        'and stream `EVENTS_SATELLITE` is `p_EVENTS_SATELLITE`. Each consuming service reads with its own durable consumer ' +
        'and acknowledges after its write commits; see docs/events.md.',
    },
    defaultContentType: 'application/json',
    servers: {
      nats: {
        host: '127.0.0.1:4222',
        protocol: 'nats',
        description: 'NATS with JetStream (NATS_URL)',
      },
    },
    channels,
    operations,
    components: { messages },
  };
}
