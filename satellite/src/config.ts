import { envBoolean, logEnv, port, positiveInt } from '@orbital/config';
import { z } from 'zod';

const list = z.string().transform((text) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const nonNegativeInt = z.coerce.number().int().min(0);

/** The satellite's environment. Durations are milliseconds. */
export const satelliteEnv = logEnv.extend({
  PORT: port.default(3001),
  // 0.0.0.0 inside containers; the Host/Origin check below is what keeps browsers out.
  HOST: z.string().default('127.0.0.1'),
  // Standalone mode: the servers to run, in the shape the backend distributes. Unset: no servers.
  SATELLITE_CONFIG_FILE: z.string().optional(),
  // Host names clients reach the satellite by, besides loopback (DNS-rebinding protection); `*` for any.
  SATELLITE_ALLOWED_HOSTS: list.default([]),
  // Browser origins allowed to call /mcp, besides loopback pages; `*` for any.
  SATELLITE_ALLOWED_ORIGINS: list.default([]),
  // Team of a team satellite: carried in client events. Unset for a global satellite.
  SATELLITE_TEAM_ID: z.string().min(1).optional(),
  // Stands in for the global.enable_swagger_docs setting until the settings cache reaches satellites.
  SATELLITE_ENABLE_DOCS: envBoolean.default(true),
  // Spec: sessions end after 30 minutes without a message.
  SESSION_IDLE_TIMEOUT_MS: positiveInt.default(30 * 60 * 1000),
  SESSION_SWEEP_INTERVAL_MS: positiveInt.default(60 * 1000),
  // Spec "Limits": 5-minute idle timeout for stdio processes (planned); 0 keeps them running.
  PROCESS_IDLE_TIMEOUT_MS: nonNegativeInt.default(5 * 60 * 1000),
  PROCESS_IDLE_CHECK_INTERVAL_MS: positiveInt.default(30 * 1000),
  MCP_HANDSHAKE_TIMEOUT_MS: positiveInt.default(30 * 1000),
  MCP_REQUEST_TIMEOUT_MS: positiveInt.default(60 * 1000),
  // First restart delay after a crash; attempt n waits base * 2^(n-1).
  RESTART_BACKOFF_MS: nonNegativeInt.default(1000),
  // A process that ran this long before crashing gets a fresh set of 3 restart attempts.
  RESTART_STABLE_AFTER_MS: positiveInt.default(10 * 60 * 1000),
  PROCESS_KILL_GRACE_MS: positiveInt.default(5000),
  STDERR_BATCH_INTERVAL_MS: positiveInt.default(1000),
  REMOTE_HEALTH_INTERVAL_MS: nonNegativeInt.default(30 * 1000),
  REMOTE_RECONNECT_BASE_MS: positiveInt.default(1000),
  REMOTE_RECONNECT_MAX_MS: positiveInt.default(60 * 1000),
  // Per-process limits, planned in the spec and off by default (0): RAM in MB, CPU seconds, processes.
  PROCESS_MEMORY_LIMIT_MB: nonNegativeInt.default(0),
  PROCESS_CPU_LIMIT_SECONDS: nonNegativeInt.default(0),
  PROCESS_MAX_PROCESSES: nonNegativeInt.default(0),

  // --- Backend link (issue 9). Without BACKEND_URL the satellite stays in standalone mode.
  // gateway-api's base URL (the Kubernetes manifests use http://gateway-api).
  BACKEND_URL: z.url().optional(),
  // The token an administrator generated; needed only until the satellite holds an API key.
  SATELLITE_REGISTRATION_TOKEN: z.string().min(1).optional(),
  // Where the satellite id and API key are kept (owner-only files).
  SATELLITE_STATE_DIR: z.string().min(1).default('.satellite'),
  // The name shown to administrators; the host name when unset.
  SATELLITE_NAME: z.string().min(1).max(200).optional(),
  // The address MCP clients reach this satellite at; sent at registration and in the first heartbeat.
  SATELLITE_PUBLIC_URL: z.url().optional(),
  // Every backend request gives up after this long (and counts as a transient failure).
  BACKEND_REQUEST_TIMEOUT_MS: positiveInt.default(10000),
  // Spec "Other message streams" 1: every 30 seconds (the backend's reply may ask for another interval).
  HEARTBEAT_INTERVAL_MS: positiveInt.default(30000),
  // The safety net behind `configure` commands: the configuration is fetched this often anyway.
  CONFIG_SYNC_INTERVAL_MS: positiveInt.default(5 * 60 * 1000),
  // Spec "Batching and queue rules".
  EVENT_BATCH_INTERVAL_MS: positiveInt.default(3000),
  EVENT_MAX_BATCH_SIZE: positiveInt.max(100).default(100),
  EVENT_MAX_QUEUE_SIZE: positiveInt.default(10000),
  EVENT_FLUSH_TIMEOUT_MS: positiveInt.default(5000),
});

export type SatelliteEnv = z.infer<typeof satelliteEnv>;
