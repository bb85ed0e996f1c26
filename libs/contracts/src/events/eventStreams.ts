/**
 * The JetStream streams of the platform, named once here so the service that creates a stream, the
 * producers that publish into it and the consumers that read it agree on every name and limit.
 *
 * Names and subjects are written before the deployment prefix: on the wire a stream is
 * `<prefix>_<name>` and its subjects `<prefix>.<subject>` (libs/bus `streamName` and `bus.subject`).
 *
 * The family: one `EVENTS_<SOURCE>` stream per event source, created and updated at start by the
 * service that owns the source, all with limits retention (a message stays for its max age whether or
 * not it was consumed, so a consumer that was down reads everything it missed and a new consumer can
 * replay), file storage, and a duplicate window in which a repeated `Nats-Msg-Id` is dropped.
 */
export type StreamDefinition = {
  /** Stream name before the deployment prefix (capitals, digits and _). */
  name: string;
  /** Subjects before the deployment prefix; wildcards allowed; must not overlap another stream. */
  subjects: string[];
  /** Who creates and updates the stream at start (every replica of it; the call is idempotent). */
  owner: string;
  description: string;
  maxAgeMs: number;
  maxBytes: number;
  /** Largest single message the stream accepts. */
  maxMessageBytes: number;
  /** Window in which a repeated Nats-Msg-Id is dropped as a duplicate. */
  duplicateWindowMs: number;
  /**
   * What happens when the stream is full. `new` refuses the publish, so the producer learns of it and
   * keeps the message (a satellite keeps its events on the 503); `old` drops the oldest messages.
   */
  discard: 'new' | 'old';
};

const minute = 60_000;
const day = 24 * 60 * minute;
const mebibyte = 1024 * 1024;
const gibibyte = 1024 * mebibyte;

/**
 * Satellite events, `evt.satellite.<satellite_id>.batch.<type>` (and the one-event subjects an older
 * gateway-api wrote). Owned by satellite-registry (it owns the satellites that emit them). Seven days cover a long consumer outage; 2 GiB keeps one busy week at
 * about 3 KB an event and 1000 events a second below the limit for a day, and at the limit the publish
 * is refused (503) so satellites keep their events instead of the stream losing unconsumed ones. The
 * ten-minute duplicate window is far longer than a satellite's retry horizon (next 3-second cycle, at
 * most 48 s of 429 back-off), so a batch retried after a lost reply is stored once.
 */
export const satelliteEventsStream: StreamDefinition = {
  name: 'EVENTS_SATELLITE',
  subjects: ['evt.satellite.>'],
  owner: 'satellite-registry',
  description: 'Events sent by satellites in batches (POST /api/satellites/:id/events)',
  maxAgeMs: 7 * day,
  maxBytes: 2 * gibibyte,
  maxMessageBytes: mebibyte,
  duplicateWindowMs: 10 * minute,
  discard: 'new',
};

/** Domain events of the settings service (`evt.settings.changed`): which keys changed, never values. */
export const settingsEventsStream: StreamDefinition = {
  name: 'EVENTS_SETTINGS',
  subjects: ['evt.settings.>'],
  owner: 'settings',
  description: 'Domain events of the settings service',
  maxAgeMs: 7 * day,
  maxBytes: 256 * mebibyte,
  maxMessageBytes: mebibyte,
  duplicateWindowMs: 2 * minute,
  discard: 'old',
};

/** Domain events of installations (`evt.installation.status_changed`, ...). */
export const installationEventsStream: StreamDefinition = {
  name: 'EVENTS_INSTALLATION',
  subjects: ['evt.installation.>'],
  owner: 'installations',
  description: 'Domain events of team installations',
  maxAgeMs: 7 * day,
  maxBytes: gibibyte,
  maxMessageBytes: mebibyte,
  duplicateWindowMs: 2 * minute,
  discard: 'new',
};

/** Domain events of the command queue (`evt.command.created`, ...). Owned by satellite-registry. */
export const commandEventsStream: StreamDefinition = {
  name: 'EVENTS_COMMAND',
  subjects: ['evt.command.>'],
  owner: 'satellite-registry',
  description: 'Domain events of the satellite command queue',
  maxAgeMs: 7 * day,
  maxBytes: gibibyte,
  maxMessageBytes: mebibyte,
  duplicateWindowMs: 2 * minute,
  discard: 'new',
};

/**
 * Heartbeats the registry stored (`evt.heartbeat.recorded.<satellite_id>`), feeding the satellite metrics
 * streams. Owned by satellite-registry. The database keeps the series; the stream only has to cover a
 * client's reconnection, so a day is plenty, and when full it drops the oldest points (a metric point
 * is not worth refusing a heartbeat for). At one ~1 KB heartbeat every 30 s, 256 MiB holds a day of
 * about 3000 satellites.
 */
export const heartbeatEventsStream: StreamDefinition = {
  name: 'EVENTS_HEARTBEAT',
  subjects: ['evt.heartbeat.>'],
  owner: 'satellite-registry',
  description: 'Heartbeats stored by the registry (feeds GET /api/satellites/:id/metrics/stream)',
  maxAgeMs: day,
  maxBytes: 256 * mebibyte,
  maxMessageBytes: mebibyte,
  duplicateWindowMs: 2 * minute,
  discard: 'old',
};

/**
 * Audit entries as the audit log stored them (`evt.audit.recorded.<team id or platform>`), feeding the
 * live audit streams. Owned by settings, which stores the log. PostgreSQL keeps the log itself for its
 * retention period; the stream only has to cover a client's reconnection, so a day is enough, and when
 * full it drops the oldest (a replay that reaches past it gets a fresh snapshot).
 */
export const auditEventsStream: StreamDefinition = {
  name: 'EVENTS_AUDIT',
  subjects: ['evt.audit.>'],
  owner: 'settings',
  description: 'Audit entries as stored (feeds GET /api/audit/stream and the team audit streams)',
  maxAgeMs: day,
  maxBytes: 256 * mebibyte,
  maxMessageBytes: mebibyte,
  duplicateWindowMs: 10 * minute,
  discard: 'old',
};

/**
 * Messages a durable consumer gave up on after its last attempt, `parked.<durable>` (an event of a batch
 * message alone on `parked.<durable>.<key>`), kept for 30 days
 * so someone can read them (libs/bus `listParked`) and replay them once the cause is fixed. Every
 * consumer makes sure it exists before consuming, so no one service has to run first. When it is
 * full a park is refused and the original message stays in its stream to be tried again: never lost.
 */
export const parkedEventsStream: StreamDefinition = {
  name: 'EVENTS_PARKED',
  subjects: ['parked.>'],
  owner: 'every durable consumer (libs/bus consumeDurable)',
  description: 'Messages parked by durable consumers after their last delivery attempt',
  maxAgeMs: 30 * day,
  maxBytes: gibibyte,
  maxMessageBytes: 2 * mebibyte,
  duplicateWindowMs: 10 * minute,
  discard: 'new',
};

export const eventStreams = [
  satelliteEventsStream,
  settingsEventsStream,
  installationEventsStream,
  commandEventsStream,
  heartbeatEventsStream,
  auditEventsStream,
  parkedEventsStream,
] as const;

const subjectToken = /^[A-Za-z0-9_-]+$/;

/** Subject a consumer parks its poison messages on. */
export function parkedSubject(durable: string): string {
  if (!subjectToken.test(durable)) throw new Error(`invalid durable consumer name: ${durable}`);
  return `parked.${durable}`;
}

/**
 * Subject one event of a batch message is parked on, `parked.<durable>.<key>`, where the key names
 * that event for good (its message's stream sequence, its place in the message and a digest of its
 * bytes): a subject of its own, so a park of the same event finds it already there however much later
 * its batch is delivered again, long after the stream's duplicate window has forgotten the first.
 */
export function parkedEventSubject(durable: string, key: string): string {
  if (!subjectToken.test(key)) throw new Error(`invalid parked event key: ${key}`);
  return `${parkedSubject(durable)}.${key}`;
}

/** Headers a parked message carries besides the original's own. */
export const parkedHeaderNames = {
  subject: 'x-parked-subject',
  stream: 'x-parked-stream',
  sequence: 'x-parked-sequence',
  durable: 'x-parked-durable',
  attempts: 'x-parked-attempts',
  error: 'x-parked-error',
  parkedAt: 'x-parked-at',
} as const;
