import { createHash } from 'node:crypto';
import { type Bus, type EventPart, type PublishResult, publishEventParts } from '@orbital/bus';
import {
  type SatelliteEvent,
  type SatelliteEventType,
  satelliteEventBatches,
  type satelliteEvents,
  satelliteEventsStream,
} from '@orbital/contracts';

/** A satellite event checked against its own definition and encoded (checkEventPart). */
export type SatelliteEventPart = EventPart<(typeof satelliteEvents)[SatelliteEventType]['payload']>;

/** A checked event, its index in the HTTP batch and its encoding. */
export type EventToStore = { index: number; event: SatelliteEvent; part: SatelliteEventPart };

/**
 * Room left in a message for its headers and the `{"events":[...]}` around the events: a run is cut
 * into several messages before it outgrows what the stream accepts.
 */
const messageBytes = satelliteEventsStream.maxMessageBytes - 16 * 1024;

/**
 * The Nats-Msg-Id of a stored run: its events' ids in order, digested, scoped by the satellite. The same
 * batch sent again after a lost reply makes the same runs and the same ids, which JetStream drops; a
 * batch put together differently stores its events again, and the consumer stores each event id once.
 */
export function runMessageId(satelliteId: string, type: string, eventIds: readonly string[]): string {
  const digest = createHash('sha256').update(type).update('\n').update(eventIds.join('\n')).digest('base64url');
  return `${satelliteId}:${digest.slice(0, 32)}`;
}

type Run = { type: SatelliteEventType; items: EventToStore[]; bytes: number };

/**
 * Consecutive events of one type, in the satellite's order, as few messages as fit: a batch of 100 tool
 * executions is one message. Events of different types stay in separate runs, in order, so a reader
 * that acts on a server's started-then-crashed sees them in that order.
 */
function runsOf(events: readonly EventToStore[]): Run[] {
  const runs: Run[] = [];
  for (const item of events) {
    const bytes = Buffer.byteLength(item.part) + 1;
    const last = runs[runs.length - 1];
    if (last && last.type === item.event.type && last.bytes + bytes <= messageBytes) {
      last.items.push(item);
      last.bytes += bytes;
    } else {
      runs.push({ type: item.event.type, items: [item], bytes: bytes + 16 });
    }
  }
  return runs;
}

/**
 * Stores checked events in JetStream as runs (`evt.satellite.<satellite_id>.batch.<type>`), one
 * message per run, every message published before any acknowledgement is awaited (the connection
 * keeps their order). Resolves with each event's acknowledgement, by its index in the HTTP batch;
 * rejects (`unavailable`) when any run was not confirmed.
 */
export async function publishEventRuns(
  bus: Bus,
  satelliteId: string,
  events: readonly EventToStore[],
  options: { headers: Record<string, string>; timeoutMs?: number },
): Promise<Map<number, PublishResult>> {
  const acks = new Map<number, PublishResult>();
  await Promise.all(
    runsOf(events).map(async (run) => {
      const def = satelliteEventBatches[run.type];
      const parts = run.items.map((item) => item.part);
      const ack = await publishEventParts(bus, def, parts, {
        tokens: { satellite_id: satelliteId },
        msgId: runMessageId(
          satelliteId,
          run.type,
          run.items.map((item) => item.event.id),
        ),
        headers: options.headers,
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      });
      for (const item of run.items) acks.set(item.index, ack);
    }),
  );
  return acks;
}
