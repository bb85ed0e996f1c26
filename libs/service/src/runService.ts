import { type Bus, createBus, parseIdentityKeys } from '@orbital/bus';
import { loadConfigOrExit, type NatsEnv, port } from '@orbital/config';
import type { ProcessName } from '@orbital/contracts';
import { createLogger, type Logger } from '@orbital/logger';
import { z } from 'zod';
import { createMetrics, type ServiceMetrics } from './createMetrics.ts';
import { createReadiness, type Readiness } from './createReadiness.ts';
import { handleShutdown, type ShutdownStep } from './handleShutdown.ts';
import { startOpsServer } from './startOpsServer.ts';

export type ServiceContext<C> = {
  config: C;
  logger: Logger;
  bus: Bus;
  metrics: ServiceMetrics;
  /** False once shutdown began; a public listener's own readiness route should follow it. */
  isReady(): boolean;
  /** The checks behind isReady (process, nats); a service adds its own (its database). */
  readiness: Readiness;
};

/**
 * What a service's composition root is given: the parsed config, the logger and the connected bus. It
 * reads no environment, so tests build the same app production runs.
 */
export type AppDeps<C> = Pick<ServiceContext<C>, 'config' | 'logger' | 'bus'>;

const opsEnv = z.object({
  // The /healthz, /readyz and /metrics listener; off unless set (the manifests set it).
  METRICS_PORT: port.optional(),
});

export type RunServiceOptions<S extends z.ZodType<NatsEnv & { LOG_LEVEL: string }>> = {
  name: ProcessName;
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
  const ops = loadConfigOrExit(opsEnv, process.env);
  const logger = createLogger({ name: options.name, level: config.LOG_LEVEL });
  const metrics = createMetrics(options.name);
  let started = false;
  let stopping = false;
  try {
    const identity = parseIdentityKeys({
      signingKeys: config.IDENTITY_SIGNING_KEY,
      publicKeys: config.IDENTITY_PUBLIC_KEYS,
    });
    // A process signs only as itself: a key of another process here is a deployment mistake.
    if (identity.signing.size !== 1 || !identity.signing.has(options.name)) {
      throw new Error(`IDENTITY_SIGNING_KEY must be one key of ${options.name}`);
    }
    const bus = await createBus({
      identity,
      ...(config.NATS_NKEY_SEED ? { credentials: { process: options.name, nkeySeed: config.NATS_NKEY_SEED } } : {}),
      servers: config.NATS_URL,
      name: options.name,
      prefix: config.NATS_SUBJECT_PREFIX,
      logger,
      requestTimeoutMs: config.NATS_REQUEST_TIMEOUT_MS,
      observer: metrics.busObserver,
      ...(config.NATS_STREAM_MAX_BYTES ? { streamMaxBytes: config.NATS_STREAM_MAX_BYTES } : {}),
      streamReplicas: config.NATS_STREAM_REPLICAS,
    });
    const readiness = createReadiness();
    readiness.add('process', () => started && !stopping);
    readiness.add('nats', () => bus.isConnected());
    const opsServer =
      ops.METRICS_PORT === undefined
        ? null
        : await startOpsServer({ port: ops.METRICS_PORT, registry: metrics.registry, readiness });
    const steps = await options.start({ config, logger, bus, metrics, isReady: readiness.isReady, readiness });
    await bus.flush();
    handleShutdown(logger, [
      {
        name: 'stop reporting ready',
        run: async () => {
          stopping = true;
        },
      },
      ...(steps.beforeDrain ?? []),
      { name: 'drain nats', run: () => bus.drain() },
      ...(steps.afterDrain ?? []),
      ...(opsServer ? [{ name: 'close ops listener', run: () => opsServer.close() }] : []),
    ]);
    started = true;
    logger.info('ready');
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  }
}
