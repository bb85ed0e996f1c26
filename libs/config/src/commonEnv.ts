import { networkProblem } from '@orbital/egress';
import { z } from 'zod';

/** Text booleans: 'true'/'false', '1'/'0', 'yes'/'no', 'on'/'off'. Never z.coerce.boolean (it reads 'false' as true). */
export const envBoolean = z.stringbool();

export const port = z.coerce.number().int().min(0).max(65535);
export const positiveInt = z.coerce.number().int().positive();

/** A comma-separated list as an array of its entries, trimmed, the empty ones left out; unset, empty. */
export const commaList = z
  .string()
  .default('')
  .transform((text) =>
    text
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  );

/** A comma-separated list of IP addresses and CIDR blocks (networks an operator allows), as an array. */
export const networkList = commaList.refine(
  (entries) => entries.every((entry) => networkProblem(entry) === null),
  'must be comma-separated IP addresses or CIDR blocks',
);

/**
 * PostgreSQL connection, the variables database setup reads. Host, database and user have no default on
 * purpose: the database counts as "configured" (GET /api/db/status) only when they are set, and a
 * service without them runs and answers `unavailable` instead of guessing.
 */
export const postgresEnv = z.object({
  POSTGRES_HOST: z.string().optional(),
  POSTGRES_PORT: port.default(5432),
  POSTGRES_DATABASE: z.string().optional(),
  POSTGRES_USER: z.string().optional(),
  POSTGRES_PASSWORD: z.string().optional(),
  // 'true' enables TLS without verifying the server certificate: the variable's established meaning,
  // which deployments behind a provider's self-signed certificate rely on.
  POSTGRES_SSL: envBoolean.default(false),
});

/** In production the database must be named outright (a process there never runs "not configured"). */
export const postgresProductionVariables = ['POSTGRES_HOST', 'POSTGRES_DATABASE', 'POSTGRES_USER', 'POSTGRES_PASSWORD'];

export const natsEnv = z.object({
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  // Every subject and stream name sits under this prefix, so two stacks can share one NATS server.
  NATS_SUBJECT_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/, 'letters, digits, - and _ only')
    .default(''),
  NATS_REQUEST_TIMEOUT_MS: positiveInt.default(5000),
  // Caps every JetStream stream's size. JetStream reserves a stream's whole size when it is created, so
  // development machines and test runs sharing one NATS server set it; production leaves it unset.
  NATS_STREAM_MAX_BYTES: positiveInt.optional(),
  // Copies of every JetStream stream: 1 on a single server, 3 on a production NATS cluster.
  NATS_STREAM_REPLICAS: positiveInt.max(5).default(1),
  // This process's key for signing the caller identity of its requests, `<process>:<kid>:<seed>`, and
  // the public keys of every process it accepts identities from (libs/bus identityTokens.ts). No default:
  // a process without them could neither prove who it speaks for nor tell a forged caller.
  IDENTITY_SIGNING_KEY: z.string().min(1),
  // This process's NATS user (an NKey seed); unset, it connects anonymously, which only an open server
  // accepts. A secret: the server knows only its public key.
  NATS_NKEY_SEED: z.string().min(1).optional(),
  IDENTITY_PUBLIC_KEYS: z.string().min(1),
});

/** In production NATS is a cluster's address and every process connects as its own user. */
export const natsProductionVariables = ['NATS_URL', 'NATS_NKEY_SEED'];

export const redisEnv = z.object({
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  // Keeps BullMQ keys of two stacks (or two test runs) apart on one Redis.
  QUEUE_PREFIX: z.string().default('orbital'),
});

/** In production Redis is the cluster's (with its password in the URL), never the local default. */
export const redisProductionVariables = ['REDIS_URL'];

export const logEnv = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export const metricsEnv = z.object({
  // Port of the /metrics, /healthz and /readyz listener of processes that serve no HTTP otherwise.
  METRICS_PORT: port.optional(),
});

export type PostgresEnv = z.infer<typeof postgresEnv>;
export type NatsEnv = z.infer<typeof natsEnv>;
export type RedisEnv = z.infer<typeof redisEnv>;
