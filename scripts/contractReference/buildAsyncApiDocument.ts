import {
  broadcastCatalogue,
  type EventDef,
  eventCatalogue,
  parkedEventsStream,
  parkedHeaderNames,
  type SatelliteEventType,
  type StreamDefinition,
  satelliteEventDescriptions,
  satelliteEventsStream,
} from '@orbital/contracts';
import { z } from 'zod';

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

/** The satellite event type of an event of that family, else null. */
function satelliteTypeOf(def: EventDef): SatelliteEventType | null {
  if (def.stream.name !== satelliteEventsStream.name) return null;
  const rest = def.subject.split('.').slice(3);
  return (def.batchOf ? rest.slice(1) : rest).join('.') as SatelliteEventType;
}

/** `evt.installation.status_changed.{team_id}.{installation_id}` becomes `installation_status_changed`. */
const idOfEvent = (subject: string) => idOf(subject.replace(/^evt\./, '').replace(/\.\{[a-z_]+\}/g, ''));

/**
 * The AsyncAPI 3.1 document of every event and broadcast subject, built from the contract catalogue
 * in libs/contracts so the reference cannot drift from the code (`npm run docs:contracts` writes
 * docs/asyncapi.json; a test fails when the checked-in file is stale). Subjects are shown without the
 * deployment prefix; `{name}` is a token filled from the message.
 */
export function buildAsyncApiDocument(): JsonObject {
  const channels: JsonObject = {};
  const operations: JsonObject = {};
  const messages: JsonObject = {};

  for (const def of eventCatalogue) {
    const id = idOfEvent(def.subject);
    const type = satelliteTypeOf(def);
    const origin = type ? satelliteEventDescriptions[type].origin : null;
    const headers = def.headers ?? {};
    const label = type ? (def.batchOf ? `${type} batch` : type) : def.subject;
    messages[id] = {
      name: label,
      title: label,
      summary: type ? satelliteEventDescriptions[type].emittedWhen : def.description,
      ...(origin === 'ours' ? { description: 'Defined by Orbital: the specification does not show this type.' } : {}),
      contentType: 'application/json',
      ...(Object.keys(headers).length
        ? {
            headers: headerSchema(
              Object.fromEntries(Object.entries(headers).map(([name, h]) => [name, h.description])),
              Object.entries(headers)
                .filter(([, h]) => h.required)
                .map(([name]) => name),
            ),
          }
        : {}),
      payload: jsonSchema(def.payload),
      ...(origin ? { 'x-origin': origin } : {}),
    };
    const tokens = [...def.subject.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] as string);
    channels[id] = {
      address: def.subject,
      title: label,
      description: `${def.description} Published by ${def.producer}; read by ${def.consumers.length ? def.consumers.join(', ') : 'no service yet (kept for operators and future readers)'}.`,
      ...(tokens.length
        ? {
            parameters: Object.fromEntries(
              tokens.map((token) => [token, { description: `The ${token} of the message` }]),
            ),
          }
        : {}),
      messages: { [id]: { $ref: `#/components/messages/${id}` } },
      'x-jetstream-stream': streamExtension(def.stream),
      'x-producer': def.producer,
      'x-consumers': [...def.consumers],
    };
    operations[`publish_${id}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      summary: type
        ? `gateway-api stores ${def.batchOf ? `a run of a satellite's ${type} events` : `a satellite's ${type} event`}`
        : `${def.producer} publishes ${def.subject}`,
      messages: [{ $ref: `#/channels/${id}/messages/${id}` }],
    };
  }

  for (const def of broadcastCatalogue) {
    const id = idOf(def.subject);
    messages[id] = {
      name: def.subject,
      title: def.subject,
      summary: def.description,
      contentType: 'application/json',
      payload: jsonSchema(def.payload),
      ...(def.reply ? { 'x-reply': jsonSchema(def.reply) } : {}),
    };
    channels[id] = {
      address: def.subject,
      title: def.subject,
      description: `${def.description} Core NATS to every replica of ${def.listeners.join(', ')}: not stored, so a listener also recovers when it reconnects.`,
      messages: { [id]: { $ref: `#/components/messages/${id}` } },
      'x-delivery': 'broadcast',
      'x-producer': def.producer,
      'x-consumers': [...def.listeners],
    };
    operations[`broadcast_${id}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      summary: `${def.producer} broadcasts ${def.subject}`,
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
      'Poison messages of each durable consumer, kept to be read (libs/bus listParked) and replayed once the cause is fixed (replayParked). One event of a batch message is parked alone on parked.{durable}.{key}, a subject of its own that makes it parked once however often its batch is delivered again.',
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
