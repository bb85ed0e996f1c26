import { type Bus, createBus } from '@orbital/bus';
import { loadConfigOrExit, type NatsEnv } from '@orbital/config';
import { createLogger, type Logger } from '@orbital/logger';
import type { z } from 'zod';
import { handleShutdown, type ShutdownStep } from './handleShutdown.ts';

export type ServiceContext<C> = { config: C; logger: Logger; bus: Bus };

export type RunServiceOptions<S extends z.ZodType<NatsEnv & { LOG_LEVEL: string }>> = {
  name: string;
  configSchema: S;
  /**
   * Starts the service on a connected bus and returns what to stop on shutdown, in order, before the
   * bus is drained (stop taking work first; close pools after the drain is appended automatically).
   */
  start(context: ServiceContext<z.infer<S>>): Promise<{ beforeDrain?: ShutdownStep[]; afterDrain?: ShutdownStep[] }>;
};

/**
 * The life of a service process, the same for every service: load and validate the environment,
 * create the logger, connect to NATS, start, say `ready`, and on SIGTERM/SIGINT stop in reverse order.
 */
export async function runService<S extends z.ZodType<NatsEnv & { LOG_LEVEL: string }>>(
  options: RunServiceOptions<S>,
): Promise<void> {
  const config = loadConfigOrExit(options.configSchema, process.env);
  const logger = createLogger({ name: options.name, level: config.LOG_LEVEL });
  try {
    const bus = await createBus({
      servers: config.NATS_URL,
      name: options.name,
      prefix: config.NATS_SUBJECT_PREFIX,
      logger,
      requestTimeoutMs: config.NATS_REQUEST_TIMEOUT_MS,
    });
    const steps = await options.start({ config, logger, bus });
    await bus.flush();
    handleShutdown(logger, [
      ...(steps.beforeDrain ?? []),
      { name: 'drain nats', run: () => bus.drain() },
      ...(steps.afterDrain ?? []),
    ]);
    logger.info('ready');
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  }
}
