import { logEnv, natsEnv, port, positiveInt, postgresEnv, redisEnv } from '@orbital/config';
import { z } from 'zod';

export const gatewayConfigSchema = z.object({
  ...postgresEnv.shape,
  ...natsEnv.shape,
  ...logEnv.shape,
  // Event-batch rate limits live in Redis so they hold across replicas; QUEUE_PREFIX namespaces the keys.
  ...redisEnv.shape,
  // Event batches one satellite may send per window (spec: one every 3 s; room for a shutdown flush).
  EVENTS_RATE_LIMIT_MAX_REQUESTS: positiveInt.default(120),
  EVENTS_RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  PORT: port.default(3000),
  // 0.0.0.0 inside containers; 127.0.0.1 keeps a development machine's gateway private.
  HOST: z.string().default('0.0.0.0'),
  // Largest JSON body accepted; event batches of 100 events are the biggest legitimate bodies.
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  // Set when a proxy (ingress) sits in front, so request.ip is the client's address.
  TRUST_PROXY: z.stringbool().default(false),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
