import type { Bus } from '@orbital/bus';
import { loadConfig } from '@orbital/config';
import type { Logger } from '@orbital/logger';
import { createReadiness } from '@orbital/service';
import type { TestEnvironment } from '@orbital/testing';
import { Redis } from 'ioredis';
import { gatewayConfigSchema } from '../src/config.ts';
import { createGateway, type Gateway, type GatewayOptions } from '../src/createGateway.ts';

export type TestGateway = Gateway & {
  /** Stops it as main.ts does (HTTP, identity, the audit relay, then its pool) and lets go of its Redis. */
  stop(): Promise<void>;
};

/**
 * gateway-api as main.ts builds it, through createGateway, from the environment a deployment would give it
 * (the test environment's, plus `configEnv`), on a bus the test connected. Each gateway has its own Redis
 * connection, as each replica does.
 */
export async function startTestGateway(options: {
  env: TestEnvironment;
  bus: Bus;
  logger: Logger;
  configEnv?: Record<string, string>;
  tuning?: GatewayOptions['tuning'];
}): Promise<TestGateway> {
  const redis = new Redis(options.env.redisUrl);
  const gateway = await createGateway({
    config: loadConfig(gatewayConfigSchema, { ...options.env.env, ...options.configEnv }),
    bus: options.bus,
    logger: options.logger,
    redis,
    readiness: createReadiness(),
    ...(options.tuning ? { tuning: options.tuning } : {}),
  });
  let stopped: Promise<void> | null = null;
  const stop = async () => {
    for (const step of [...gateway.beforeDrain, ...gateway.afterDrain]) await step.run();
    redis.disconnect();
  };
  return {
    ...gateway,
    stop: () => {
      stopped ??= stop();
      return stopped;
    },
  };
}
