import { logEnv, natsEnv, port, postgresEnv } from '@orbital/config';
import { z } from 'zod';

export const gatewayConfigSchema = z.object({
  ...postgresEnv.shape,
  ...natsEnv.shape,
  ...logEnv.shape,
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
