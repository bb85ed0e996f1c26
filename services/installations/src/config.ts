import { databaseServiceConfig, networkList, positiveInt } from '@orbital/config';
import { z } from 'zod';

export const configSchema = databaseServiceConfig({
  // Key material for AES-256-GCM of installation secrets (environment and header values). No default
  // and no fallback: without it the service refuses to start rather than store credentials weakly.
  SERVICE_ENCRYPTION_SECRET: z.string().min(32, 'must be at least 32 characters'),
  // How often undelivered commands and domain events are retried, and a missing stream looked for again.
  OUTBOX_RETRY_MS: positiveInt.default(5000),
  // Template URLs may not point at link-local or cloud metadata addresses (satellites would hand their
  // requests, and the headers a team configured, to whatever answers there) unless these networks
  // (comma-separated CIDR blocks) allow it.
  TEMPLATE_URL_ALLOWED_NETWORKS: networkList,
  // The OAuth flow of remote servers (discovery, registration, token and revocation requests) reaches
  // only public addresses, unless these networks (comma-separated CIDR blocks) are allowed: a company's
  // own authorization server, or a test's on loopback.
  REMOTE_OAUTH_ALLOWED_NETWORKS: networkList,
  // Plain http for those requests as well as https: development and tests only.
  REMOTE_OAUTH_ALLOW_HTTP: z.stringbool().default(false),
  // Longest wait for one request of the flow.
  REMOTE_OAUTH_TIMEOUT_MS: positiveInt.default(10000),
  // An access token this close to its end is refreshed before a satellite gets it.
  REMOTE_OAUTH_REFRESH_MARGIN_SECONDS: z.coerce.number().int().min(0).default(60),
});

export type Config = z.infer<typeof configSchema>;
