import { z } from 'zod';
import { teamIdField } from '../ids.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { processHealth } from '../satellite/installationStatus.ts';

/** Ids a satellite or a caller names (installations, teams): any short id, a UUID in lower case. */
const id = teamIdField;

export const satelliteTypes = ['global', 'team'] as const;
export const satelliteType = z.enum(satelliteTypes);
export type SatelliteType = z.infer<typeof satelliteType>;

/**
 * `inactive` from registration until the first heartbeat, then `active`; `revoked` when an
 * administrator withdraws its key (the row stays for the audit trail).
 */
export const satelliteStatuses = ['inactive', 'active', 'revoked'] as const;
export const satelliteStatus = z.enum(satelliteStatuses);
export type SatelliteStatus = z.infer<typeof satelliteStatus>;

export const tokenScope = z.enum(['global', 'team']);
export type TokenScope = z.infer<typeof tokenScope>;

/**
 * Allowlist entries of team satellites: an IPv4 or IPv6 address, or a CIDR block. An empty list
 * means any address.
 */
export const ipAllowlistEntry = z
  .string()
  .max(64)
  .refine((value) => isAddressOrCidr(value), 'must be an IP address or a CIDR block such as 10.0.0.0/8');

function isAddressOrCidr(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/');
  if (rest.length > 0 || !address) return false;
  const v4 = z.ipv4().safeParse(address).success;
  const v6 = !v4 && z.ipv6().safeParse(address).success;
  if (!v4 && !v6) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (v4 ? 32 : 128);
}
export const ipAllowlist = z.array(ipAllowlistEntry).max(100);

// ---------------------------------------------------------------------------------------------
// Registration tokens

export const registrationTokenLifetime = {
  /** Long enough to copy a token into a satellite's environment and start it; short enough that a leaked one expires soon. */
  defaultMinutes: 60,
  minMinutes: 5,
  maxMinutes: 7 * 24 * 60,
} as const;

export const createRegistrationTokenBody = z
  .object({
    /** Minutes until the token expires; 60 when not given, 5 minutes to 7 days. */
    expires_in_minutes: z
      .number()
      .int()
      .min(registrationTokenLifetime.minMinutes)
      .max(registrationTokenLifetime.maxMinutes)
      .default(registrationTokenLifetime.defaultMinutes),
    description: z.string().max(500).optional(),
  })
  .strict();

export const registrationTokenView = z.object({
  id: z.uuid(),
  scope: tokenScope,
  team_id: z.string().nullable(),
  description: z.string().nullable(),
  created_by: z.string().nullable(),
  created_at: isoTimestamp,
  expires_at: isoTimestamp,
  used_at: isoTimestamp.nullable(),
  used_by_satellite_id: z.string().nullable(),
  revoked_at: isoTimestamp.nullable(),
  /** Derived: `active` (usable), `used`, `expired` or `revoked`. */
  state: z.enum(['active', 'used', 'expired', 'revoked']),
});
export type RegistrationTokenView = z.infer<typeof registrationTokenView>;

/** Answered once, at generation: the token itself is never stored and never shown again. */
export const createdRegistrationToken = registrationTokenView.extend({
  token: z.string(),
  /** The header value a satellite sends to POST /api/satellites/register. */
  authorization: z.string(),
});

// ---------------------------------------------------------------------------------------------
// Registration

export const registerSatelliteBody = z
  .object({
    name: z.string().min(1).max(200),
    capabilities: z.array(z.string().min(1).max(100)).max(100).default([]),
    system_info: z.record(z.string(), z.unknown()).default({}),
    satellite_url: z.url().max(2000).optional(),
    /** Optional: when given, must match the token's scope (a team token cannot register a global satellite). */
    satellite_type: satelliteType.optional(),
    team_id: id.optional(),
  })
  .strict();
export type RegisterSatelliteBody = z.infer<typeof registerSatelliteBody>;

export const registerSatelliteReply = z.object({
  satellite_id: z.uuid(),
  /** `<key id>.<secret>`; shown this once, stored only as an Argon2 hash. */
  api_key: z.string(),
  status: z.literal('inactive'),
  satellite_type: satelliteType,
  team_id: z.string().nullable(),
});

// ---------------------------------------------------------------------------------------------
// Heartbeats

const nonNegative = z.number().min(0);
/** How a satellite sees its own network, as it reports it in each heartbeat. */
const networkStatus = z.enum(['online', 'degraded', 'offline']);

export const heartbeatBody = z
  .object({
    system: z
      .object({
        cpu_percent: z.number().min(0).max(100),
        memory: z.object({ used_mb: nonNegative, total_mb: nonNegative }),
        disk: z.object({ used_mb: nonNegative, total_mb: nonNegative }).optional(),
        network_status: networkStatus,
        process_counts: z.object({
          total: z.number().int().min(0),
          running: z.number().int().min(0),
          failed: z.number().int().min(0).default(0),
        }),
        uptime_seconds: nonNegative,
      })
      .strict(),
    processes: z
      .array(
        z
          .object({
            process_id: z.string().min(1).max(200),
            installation_id: id,
            team_id: id,
            status: z.string().min(1).max(50),
            health: processHealth,
            request_count: z.number().int().min(0),
            avg_response_time_ms: nonNegative.optional(),
            p95_response_time_ms: nonNegative.optional(),
            cpu_percent: nonNegative.optional(),
            memory_mb: nonNegative.optional(),
          })
          .strict(),
      )
      .max(1000)
      .default([]),
    /** Sent in the first heartbeat after the satellite starts. */
    satellite_url: z.url().max(2000).optional(),
  })
  .strict();
export type HeartbeatBody = z.infer<typeof heartbeatBody>;

export const heartbeatReply = z.object({
  status: satelliteStatus,
  /** True on the heartbeat that moved the satellite from inactive to active. */
  activated: z.boolean(),
  next_heartbeat_ms: z.number().int().positive(),
});

// ---------------------------------------------------------------------------------------------
// Listing and status for the frontend

export const satelliteView = z.object({
  id: z.uuid(),
  name: z.string(),
  satellite_type: satelliteType,
  team_id: z.string().nullable(),
  status: satelliteStatus,
  capabilities: z.array(z.string()),
  system_info: z.record(z.string(), z.unknown()),
  satellite_url: z.string().nullable(),
  ip_allowlist: z.array(z.string()),
  created_by: z.string().nullable(),
  registered_at: isoTimestamp,
  last_heartbeat_at: isoTimestamp.nullable(),
  /** True when active and no two heartbeats in a row are missing (offline 75 s after the last at the 30 s interval). */
  online: z.boolean(),
});
export type SatelliteView = z.infer<typeof satelliteView>;

export const heartbeatPoint = z.object({
  received_at: isoTimestamp,
  cpu_percent: z.number(),
  memory_used_mb: z.number(),
  memory_total_mb: z.number(),
  disk_used_mb: z.number().nullable(),
  disk_total_mb: z.number().nullable(),
  network_status: networkStatus,
  process_total: z.number().int(),
  process_running: z.number().int(),
  process_failed: z.number().int(),
  uptime_seconds: z.number(),
});

export const satelliteProcessView = z.object({
  process_id: z.string(),
  installation_id: z.string(),
  team_id: z.string(),
  status: z.string(),
  health: processHealth,
  request_count: z.number().int(),
  avg_response_time_ms: z.number().nullable(),
  p95_response_time_ms: z.number().nullable(),
  cpu_percent: z.number().nullable(),
  memory_mb: z.number().nullable(),
  updated_at: isoTimestamp,
});

export const satelliteMetricsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(2880).default(120),
    since: isoTimestamp.optional(),
  })
  .strict();

export const satelliteMetrics = z.object({
  satellite_id: z.uuid(),
  heartbeats: z.array(heartbeatPoint),
  processes: z.array(satelliteProcessView),
});
export type SatelliteMetrics = z.infer<typeof satelliteMetrics>;

export const updateIpAllowlistBody = z.object({ ip_allowlist: ipAllowlist }).strict();
