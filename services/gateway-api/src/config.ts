import { logEnv, natsEnv, port, positiveInt, postgresEnv, redisEnv } from '@orbital/config';
import { z } from 'zod';

export const gatewayConfigSchema = z.object({
  ...postgresEnv.shape,
  ...natsEnv.shape,
  ...logEnv.shape,
  // Login rate limits live in Redis so they hold across replicas; QUEUE_PREFIX namespaces the keys.
  ...redisEnv.shape,
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
  // The first global admin, created once identity's schema exists. No default: without both, no admin
  // is created (the gateway warns while none exists); a weak password stops the start.
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().optional(),
  ADMIN_NAME: z.string().min(1).max(200).default('Administrator'),
  // Absolute lifetime of a login session.
  SESSION_TTL_HOURS: positiveInt.max(24 * 90).default(24),
  // How long a replica trusts a validated session without asking PostgreSQL. Revocation does not wait
  // for it (evictions are broadcast to every replica); it bounds staleness if a broadcast is missed.
  SESSION_CACHE_TTL_MS: positiveInt.default(30000),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
