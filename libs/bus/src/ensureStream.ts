import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { StreamDefinition } from '@orbital/contracts';
import type { Bus } from './createBus.ts';
import { isJetStreamNotFound } from './jetStreamErrors.ts';
import { streamName } from './streamName.ts';

export type EnsureStreamOptions = {
  /** Copies kept by a NATS cluster; defaults to the bus's streamReplicas (NATS_STREAM_REPLICAS), else 1. */
  replicas?: number;
};

/** The server-side configuration of a stream definition, under the bus's deployment prefix. */
export function streamConfig(bus: Bus, def: StreamDefinition, options: EnsureStreamOptions = {}) {
  return {
    name: streamName(bus, def.name),
    description: def.description,
    subjects: def.subjects.map((s) => bus.subject(s)),
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: def.discard === 'new' ? DiscardPolicy.New : DiscardPolicy.Old,
    max_age: nanos(def.maxAgeMs),
    max_bytes: Math.min(def.maxBytes, bus.streamMaxBytes ?? def.maxBytes),
    max_msg_size: def.maxMessageBytes,
    duplicate_window: nanos(def.duplicateWindowMs),
    num_replicas: options.replicas ?? bus.streamReplicas ?? 1,
  } satisfies Partial<StreamConfig>;
}

/**
 * Creates the stream, or updates it to this definition when it exists, so a changed limit in
 * libs/contracts reaches the server at the owner's next start. Safe to call from every replica at once.
 */
export async function ensureStream(bus: Bus, def: StreamDefinition, options: EnsureStreamOptions = {}): Promise<void> {
  const jsm = await jetstreamManager(bus.connection);
  const config = streamConfig(bus, def, options);
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, config);
    return;
  } catch (error) {
    if (!isJetStreamNotFound(error)) throw error;
  }
  try {
    await jsm.streams.add(config);
  } catch (error) {
    // Another replica created it between our look-up and our add: make sure it has this definition.
    if (!String((error as Error).message).includes('already in use')) throw error;
    await jsm.streams.update(config.name, config);
  }
}
