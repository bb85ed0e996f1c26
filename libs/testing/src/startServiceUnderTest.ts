import type { Bus } from '@orbital/bus';
import { loadConfig } from '@orbital/config';
import type { Logger } from '@orbital/logger';
import type { z } from 'zod';
import { createTestBuses, type TestBuses } from './createTestBuses.ts';
import type { TestEnvironment } from './createTestEnvironment.ts';

export type ServiceUnderTest<App> = {
  app: App;
  /** The service's own connection. */
  bus: Bus;
  /** Stops the service the way its main.ts does: the app first, then its connection, then what it holds. */
  stop(): Promise<void>;
};

export type ServiceUnderTestOptions<Schema extends z.ZodType, App> = {
  /** The run's environment, or a slice of it with a subject prefix of its own. */
  env: Pick<TestEnvironment, 'busOptions' | 'env'>;
  /** The connection's name (shown in NATS monitoring). */
  name: string;
  logger: Logger;
  /** The service's environment schema: the service is configured from this run's environment, as in a deployment. */
  configSchema: Schema;
  /** Variables added to this run's environment for this service alone. */
  configEnv?: Record<string, string>;
  /** The stack's connections, when the service is one of several; otherwise it gets a connection of its own. */
  buses?: TestBuses;
  requestTimeoutMs?: number;
  /** Builds the app as main.ts does (its createApp). */
  create(deps: { bus: Bus; logger: Logger; config: z.infer<Schema> }): Promise<App>;
  /** What stops the app before its connection drains (workers, consumers, timers). */
  stopApp?(app: App): Promise<void> | void;
  /** What the app still holds once its connection has drained (a database pool, a Redis connection). */
  release?(app: App): Promise<void> | void;
};

/**
 * Starts one service in this process against the real infrastructure of a test run: its own NATS
 * connection, its configuration read from the run's environment, its app built by its own factory.
 * What remains specific to a service (its clock, its stand-ins, its fixtures) stays in its harness.
 */
export async function startServiceUnderTest<Schema extends z.ZodType, App>(
  options: ServiceUnderTestOptions<Schema, App>,
): Promise<ServiceUnderTest<App>> {
  const buses = options.buses ?? createTestBuses(options.env, options.logger);
  const bus = await buses.connect(
    options.name,
    options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs },
  );
  const config = loadConfig(options.configSchema, { ...options.env.env, ...options.configEnv });
  const app = await options.create({ bus, logger: options.logger, config });
  await bus.flush();
  return {
    app,
    bus,
    async stop() {
      await options.stopApp?.(app);
      await bus.drain();
      await options.release?.(app);
    },
  };
}
