import { fileURLToPath } from 'node:url';
import {
  envBoolean,
  httpTimeoutsEnv,
  httpTimeoutsProblem,
  logEnv,
  natsEnv,
  natsProductionVariables,
  networkList,
  port,
  positiveInt,
  postgresEnv,
  postgresProductionVariables,
  redisEnv,
  redisProductionVariables,
  requireInProduction,
} from '@orbital/config';
import { networkProblem } from '@orbital/egress';
import { z } from 'zod';

/** TRUST_PROXY as Fastify takes it: false, a hop count, or the addresses of trusted proxies. */
const trustProxy = z
  .string()
  .default('false')
  .transform((text, ctx): false | number | string[] => {
    const value = text.trim().toLowerCase();
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    if (['true', 'yes', 'on'].includes(value)) return 1;
    if (/^\d+$/.test(value)) return Number(value);
    const entries = value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (entries.length > 0 && entries.every((entry) => networkProblem(entry) === null)) return entries;
    ctx.addIssue({
      code: 'custom',
      message: 'must be false, true, a number of proxy hops, or proxy addresses and CIDR blocks',
    });
    return z.NEVER;
  });

export const gatewayConfigSchema = requireInProduction(
  z
    .object({
      ...postgresEnv.shape,
      ...natsEnv.shape,
      ...logEnv.shape,
      // Login and event-batch rate limits live in Redis so they hold across replicas; QUEUE_PREFIX
      // namespaces the keys.
      ...redisEnv.shape,
      // Event batches one satellite may send per window: it sends one every 3 s (20 a minute); the rest is
      // room for retries and a shutdown flush.
      EVENTS_RATE_LIMIT_MAX_REQUESTS: positiveInt.default(120),
      EVENTS_RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
      PORT: port.default(3000),
      // How long a client may take to send its head and its whole request (libs/config httpTimeouts).
      ...httpTimeoutsEnv.shape,
      // 0.0.0.0 inside containers; 127.0.0.1 keeps a development machine's gateway private.
      HOST: z.string().default('0.0.0.0'),
      // Largest JSON body accepted; event batches of 100 events are the biggest legitimate bodies.
      BODY_LIMIT_BYTES: z.coerce
        .number()
        .int()
        .positive()
        .default(1024 * 1024),
      // Which proxies in front (an ingress) may say who the client is, so request.ip (login limits, the
      // satellite allowlist, logs) is the client's real address: `false` (none: X-Forwarded-For is ignored),
      // `true` or a number (that many proxy hops: the address the nearest one saw, never one a client wrote
      // itself), or the proxies' addresses and CIDR blocks.
      TRUST_PROXY: trustProxy,
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
      // OAuth for MCP clients of satellites (src/oauth). The public base URL of this gateway: the issuer
      // satellites name in their protected resource metadata. https in production (clients refuse plain
      // http except on loopback); defaults to http://localhost:PORT outside production, required in it.
      OAUTH_ISSUER_URL: z.url().optional(),
      OAUTH_ACCESS_TOKEN_TTL_SECONDS: positiveInt.max(24 * 3600).default(3600),
      OAUTH_REFRESH_TOKEN_TTL_DAYS: positiveInt.max(365).default(30),
      OAUTH_AUTHORIZATION_CODE_TTL_SECONDS: positiveInt.max(600).default(60),
      OAUTH_PERSONAL_TOKEN_MAX_DAYS: positiveInt.max(3650).default(365),
      // Client ID Metadata Documents: a client whose id is an https URL is described by the document there.
      // Fetching URLs anyone may type is guarded: public addresses only unless listed here (CIDR blocks),
      // https only unless ALLOW_HTTP (development, refused with an https issuer), within a time and size limit.
      OAUTH_CLIENT_METADATA_DOCUMENTS: envBoolean.default(true),
      OAUTH_CLIENT_METADATA_ALLOW_HTTP: envBoolean.default(false),
      OAUTH_CLIENT_METADATA_ALLOWED_NETWORKS: networkList,
      OAUTH_CLIENT_METADATA_TIMEOUT_MS: positiveInt.max(30000).default(5000),
      OAUTH_CLIENT_METADATA_MAX_BYTES: positiveInt.max(1024 * 1024).default(5120),
      OAUTH_CLIENT_METADATA_CACHE_ENTRIES: positiveInt.default(1000),
      // Sign-in with an outside account (src/sso): how long a started sign-in may take to come back from the
      // provider, and the longest wait for one request to a provider (then the person is told it is unreachable).
      SSO_STATE_TTL_SECONDS: positiveInt.min(60).max(3600).default(600),
      SSO_PROVIDER_TIMEOUT_MS: positiveInt.max(60000).default(10000),
      // SSE: a keep-alive comment this often on every stream, so proxies keep idle streams open, and the
      // reconnect delay sent as `retry`.
      SSE_KEEPALIVE_MS: positiveInt.default(30000),
      SSE_RETRY_MS: positiveInt.default(3000),
      // The built web console served at `/` (npm start and the container image build it there).
      CONSOLE_DIR: z
        .string()
        .min(1)
        .default(fileURLToPath(new URL('../../../console/dist', import.meta.url))),
    })
    .refine((config) => httpTimeoutsProblem(config) === null, {
      path: ['HTTP_HEADERS_TIMEOUT_MS'],
      message: 'must not be longer than HTTP_REQUEST_TIMEOUT_MS',
    })
    .refine((config) => !(config.OAUTH_CLIENT_METADATA_ALLOW_HTTP && config.OAUTH_ISSUER_URL?.startsWith('https:')), {
      path: ['OAUTH_CLIENT_METADATA_ALLOW_HTTP'],
      message: 'is for development only; it cannot be used with an https OAUTH_ISSUER_URL',
    }),
  // The issuer satellites name to MCP clients: in production the public URL, never the localhost default.
  [...postgresProductionVariables, ...natsProductionVariables, ...redisProductionVariables, 'OAUTH_ISSUER_URL'],
);

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
