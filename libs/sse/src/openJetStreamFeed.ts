import { type ConsumerMessages, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Bus } from '@orbital/bus';

export type FeedMessage = { seq: number; payload: unknown };

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

export type JetStreamFeed = AsyncIterable<FeedMessage> & { close(): Promise<void> };

/**
 * The messages of one subject filter from `startSeq` on, through an ordered consumer: server-side
 * filtering, in stream order, no acknowledgements, and an ephemeral consumer the server forgets once
 * closed. The sequence is the SSE event id, so a replay from Last-Event-ID is exact.
 */
export async function openJetStreamFeed(
  bus: Bus,
  options: { stream: string; filterSubject: string; startSeq: number },
): Promise<JetStreamFeed> {
  const consumer = await jetstream(bus.connection).consumers.get(wireStreamName(bus, options.stream), {
    // A string, not an array: a single filter_subject works on NATS 2.9 too.
    filter_subjects: bus.subject(options.filterSubject),
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: Math.max(1, options.startSeq),
  });
  const messages: ConsumerMessages = await consumer.consume();
  return {
    async *[Symbol.asyncIterator]() {
      for await (const message of messages) {
        let payload: unknown;
        try {
          payload = message.json();
        } catch {
          continue;
        }
        yield { seq: message.seq, payload };
      }
    },
    async close() {
      await messages.close();
    },
  };
}
