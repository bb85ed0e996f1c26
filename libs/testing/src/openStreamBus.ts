import { type Bus, createBus, ensureStream } from '@orbital/bus';
import type { StreamDefinition } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, type TestEnvironment } from './createTestEnvironment.ts';

/**
 * A stream of a test file's own, so its tests do not depend on the platform's definitions: small
 * (JetStream reserves a stream's whole size) and short-lived; the test environment deletes it.
 */
export function defineTestStream(
  name: string,
  subjects: string[],
  overrides: Partial<Pick<StreamDefinition, 'discard' | 'maxBytes'>> = {},
): StreamDefinition {
  return {
    name,
    subjects,
    owner: 'test',
    description: 'test events',
    maxAgeMs: 60_000,
    maxBytes: 16 * 1024 * 1024,
    maxMessageBytes: 64 * 1024,
    duplicateWindowMs: 60_000,
    discard: 'new',
    ...overrides,
  };
}

/**
 * What a test of JetStream starts before its tests: its own environment without a database, one bus on
 * it (named for the file's logs and NATS connection) and the streams it is given, created in that
 * environment: a file's own (defineTestStream) or one of the platform's definitions the code under test
 * publishes to. `close` drains the bus and removes the environment, its streams with it.
 */
export async function openStreamBus(
  name: string,
  ...streams: StreamDefinition[]
): Promise<{ env: TestEnvironment; bus: Bus; close(): Promise<void> }> {
  const env = await createTestEnvironment({ withDatabase: false });
  const bus = await createBus({ ...env.busOptions(name), logger: createLogger({ name, level: 'silent' }) });
  for (const stream of streams) await ensureStream(bus, stream);
  return {
    env,
    bus,
    async close() {
      await bus.drain();
      await env.cleanup();
    },
  };
}
