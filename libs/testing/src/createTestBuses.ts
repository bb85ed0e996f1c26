import { type Bus, createBus } from '@orbital/bus';
import type { Logger } from '@orbital/logger';
import type { TestEnvironment } from './createTestEnvironment.ts';

export type TestBuses = {
  /** One more connection to this run's NATS traffic, as one more process of the stack would have. */
  connect(name: string, options?: { requestTimeoutMs?: number }): Promise<Bus>;
  /** Waits until every connection's subscriptions are known to the server, so nothing is missed. */
  flush(): Promise<void>;
  /** Drains every connection, in the order they were made (one a service already drained is passed over). */
  drain(): Promise<void>;
};

/**
 * The NATS connections of one test stack. Each service under test gets its own connection, as it would
 * in its own process, so a request crosses the server instead of short-cutting inside one client.
 */
export function createTestBuses(
  env: Pick<TestEnvironment, 'busOptions'>,
  logger: Logger,
  defaults: { requestTimeoutMs?: number } = {},
): TestBuses {
  const buses: Bus[] = [];
  return {
    async connect(name, options = {}) {
      const requestTimeoutMs = options.requestTimeoutMs ?? defaults.requestTimeoutMs;
      const bus = await createBus({
        ...env.busOptions(name),
        logger,
        ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
      });
      buses.push(bus);
      return bus;
    },
    async flush() {
      for (const bus of buses) await bus.flush();
    },
    async drain() {
      for (const bus of buses.splice(0)) await bus.drain();
    },
  };
}
