import { jetstream, jetstreamManager, type StoredMsg } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import { parkedEventsStream, parkedHeaderNames, parkedSubject } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Bus } from './createBus.ts';
import { isJetStreamNotFound } from './jetStreamErrors.ts';
import { publishData } from './publishEvent.ts';
import { streamName } from './streamName.ts';

export type ParkedMessage = {
  /** Sequence in EVENTS_PARKED; what replayParked takes. */
  parkedSeq: number;
  durable: string;
  /** The original subject, before the deployment prefix. */
  subject: string;
  stream: string;
  sequence: number;
  attempts: number;
  reason: string;
  parkedAt: string;
  /** The original payload: parsed JSON, or the text when it is not JSON. */
  payload: unknown;
  /** The original message's own headers (satellite id, team, ...). */
  headers: Record<string, string>;
};

const parkedKeys = new Set<string>(Object.values(parkedHeaderNames));

function decode(subject: string, seq: number, headers: MsgHdrs | undefined, data: Uint8Array): ParkedMessage {
  const own: Record<string, string> = {};
  for (const [key, values] of headers ?? []) {
    if (!parkedKeys.has(key.toLowerCase()) && values[0] !== undefined) own[key] = values[0];
  }
  const text = new TextDecoder().decode(data);
  let payload: unknown = text;
  try {
    payload = JSON.parse(text);
  } catch {
    // Parked because it is not JSON: shown as the text it is.
  }
  const header = (name: string) => headers?.get(name) ?? '';
  return {
    parkedSeq: seq,
    durable: header(parkedHeaderNames.durable) || subject.split('.')[subject.split('.').indexOf('parked') + 1] || '',
    subject: header(parkedHeaderNames.subject),
    stream: header(parkedHeaderNames.stream),
    sequence: Number(header(parkedHeaderNames.sequence)),
    attempts: Number(header(parkedHeaderNames.attempts)),
    reason: header(parkedHeaderNames.error),
    parkedAt: header(parkedHeaderNames.parkedAt),
    payload,
    headers: own,
  };
}

/**
 * The messages parked by one durable consumer (or by all), oldest first, at most `limit`: its whole
 * messages (`parked.<durable>`) and the events of its batch messages parked alone
 * (`parked.<durable>.<key>`). Read with a throw-away ordered consumer per subject filter (NATS before
 * 2.10 takes one filter per consumer), so listing acknowledges nothing and changes nothing.
 */
export async function listParked(
  bus: Bus,
  options: { durable?: string; limit?: number } = {},
): Promise<ParkedMessage[]> {
  const limit = options.limit ?? 100;
  const filters = options.durable
    ? [parkedSubject(options.durable), `${parkedSubject(options.durable)}.>`]
    : ['parked.>'];
  const parked: ParkedMessage[] = [];
  for (const filter of filters) parked.push(...(await readParked(bus, bus.subject(filter), limit)));
  return parked.sort((a, b) => a.parkedSeq - b.parkedSeq).slice(0, limit);
}

/** The oldest `limit` parked messages of one subject filter. */
async function readParked(bus: Bus, filter: string, limit: number): Promise<ParkedMessage[]> {
  const stream = streamName(bus, parkedEventsStream.name);
  const jsm = await jetstreamManager(bus.connection);
  let total = 0;
  try {
    const info = await jsm.streams.info(stream, { subjects_filter: filter });
    total = Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
  } catch (error) {
    if (isJetStreamNotFound(error)) return [];
    throw error;
  }
  if (total === 0) return [];
  const consumer = await jetstream(bus.connection).consumers.get(stream, { filter_subjects: filter });
  const wanted = Math.min(limit, total);
  const parked: ParkedMessage[] = [];
  while (parked.length < wanted) {
    const batch = await consumer.fetch({ max_messages: wanted - parked.length, expires: 2000 });
    let received = 0;
    for await (const msg of batch) {
      received += 1;
      parked.push(decode(msg.subject, msg.seq, msg.headers, msg.data));
    }
    // Messages replayed or expired since the count: nothing more will come.
    if (received === 0) break;
  }
  await consumer.delete().catch(() => undefined);
  return parked;
}

/**
 * Puts a parked message back on its original subject (with a new id, so the duplicate window does not
 * drop it) and removes it from EVENTS_PARKED; for when the cause of the failures is fixed.
 */
export async function replayParked(bus: Bus, parkedSeq: number): Promise<void> {
  const stream = streamName(bus, parkedEventsStream.name);
  const jsm = await jetstreamManager(bus.connection);
  let stored: StoredMsg | null;
  try {
    stored = await jsm.streams.getMessage(stream, { seq: parkedSeq });
  } catch (error) {
    if (!isJetStreamNotFound(error)) throw error;
    stored = null;
  }
  if (!stored) throw new AppError('not_found', 'No parked message has this sequence', { details: { parkedSeq } });
  const parked = decode(stored.subject, stored.seq, stored.header, stored.data);
  await publishData(bus, parked.subject, stored.data, {
    headers: parked.headers,
    msgId: `${parked.stream}:${parked.sequence}:replay:${parkedSeq}`,
  });
  await jsm.streams.deleteMessage(stream, parkedSeq);
}
