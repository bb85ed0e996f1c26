import {
  logEnv,
  natsEnv,
  natsProductionVariables,
  networkList,
  positiveInt,
  postgresEnv,
  postgresProductionVariables,
  requireInProduction,
} from '@orbital/config';
import { z } from 'zod';

export const configSchema = requireInProduction(
  z.object({
    ...postgresEnv.shape,
    ...natsEnv.shape,
    ...logEnv.shape,
    // Key material for AES-256-GCM of installation secrets (environment and header values). No default
    // and no fallback: without it the service refuses to start rather than store credentials weakly.
    SERVICE_ENCRYPTION_SECRET: z.string().min(32, 'must be at least 32 characters'),
    // How often undelivered commands and domain events are retried, and a missing stream looked for again.
    OUTBOX_RETRY_MS: positiveInt.default(5000),
    // Template URLs may not point at link-local or cloud metadata addresses (satellites would hand their
    // requests, and the headers a team configured, to whatever answers there) unless these networks
    // (comma-separated CIDR blocks) allow it.
    TEMPLATE_URL_ALLOWED_NETWORKS: networkList,
  }),
  [...postgresProductionVariables, ...natsProductionVariables],
);

export type Config = z.infer<typeof configSchema>;
