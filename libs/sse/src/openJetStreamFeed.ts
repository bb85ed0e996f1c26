import { type ConsumerMessages, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Bus } from '@orbital/bus';
import { type EventDef, type EventPayloadOf, type EventTokens, eventFilter } from '@orbital/contracts';

export type FeedMessage<P = unknown> = { seq: number; payload: P };

export type StreamBounds = { firstSeq: number; lastSeq: number };

function wireStreamName(bus: Bus, name: string): string {
  return bus.prefix ? `${bus.prefix}_${name}` : name;
}

/** The sequences the stream holds now: what can still be replayed, and where "new" starts. */
export async function readStreamBounds(bus: Bus, stream: string): Promise<StreamBounds> {
  const jsm = await jetstreamManager(bus.connection);
  const info = await jsm.streams.info(wireStreamName(bus, stream));
  return { firstSeq: info.state.first_seq, lastSeq: info.state.last_seq };
}

export type JetStreamFeed<P = unknown> = AsyncIterable<FeedMessage<P>> & {
  /**
   * Stops delivery and deletes the server-side consumer; resolves once both are done, whether or not
   * the feed was ever iterated. A loop over the feed ends; iterating a closed feed yields nothing.
   */
  close(): Promise<void>;
};

/**
 * The messages of one event from `startSeq` on, the given subject tokens fixed (the others any), through
 * an ordered consumer: server-side filtering, in stream order, no acknowledgements. Each payload is
 * checked against the event's schema; one that breaks it is skipped (it keeps its sequence, so a
 * client's Last-Event-ID still points past it). The sequence is the SSE event id, so a replay from
 * Last-Event-ID is exact. Closing deletes the consumer at once rather than leaving it to the server's
 * inactivity threshold (five minutes for an ordered consumer), so departed clients cost the server
 * nothing.
 */
export async function openJetStreamFeed<E extends EventDef>(
  bus: Bus,
  options: { event: E; tokens?: EventTokens<E>; startSeq: number },
): Promise<JetStreamFeed<EventPayloadOf<E>>> {
  const consumer = await jetstream(bus.connection).consumers.get(wireStreamName(bus, options.event.stream.name), {
    // A string, not an array: a single filter_subject works on NATS 2.9 too.
    filter_subjects: bus.subject(eventFilter(options.event, options.tokens)),
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: Math.max(1, options.startSeq),
  });
  let messages: ConsumerMessages;
  try {
    messages = await consumer.consume();
  } catch (err) {
    await consumer.delete().catch(() => {});
    throw err;
  }
  let closing: Promise<void> | null = null;
  return {
    async *[Symbol.asyncIterator]() {
      for await (const message of messages) {
        let payload: unknown;
        try {
          payload = message.json();
        } catch {
          continue;
        }
        const checked = options.event.payload.safeParse(payload);
        if (checked.success) yield { seq: message.seq, payload: checked.data as EventPayloadOf<E> };
      }
    },
    close() {
      closing ??= (async () => {
        // stop(), not messages.close(): the latter settles only when an iterator drains the queue it
        // signals through, so a feed closed before anyone read it (a client gone while the feed was
        // opening) would wait forever. stop() unsubscribes and clears the heartbeat timer at once; a
        // loop in progress, or one started later, reads the queued stop and ends.
        messages.stop();
        await consumer.delete().catch(() => {});
      })();
      return closing;
    },
  };
}
