import { z } from 'zod';
import { canonicalId, isUuidShaped } from '../ids.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { installationStatus } from './installationStatus.ts';

/**
 * The satellite event catalogue: one zod schema per event type, data fields in snake_case. Types marked
 * "ours" are defined by Orbital: the product specification names `mcp.server.status_changed` without its
 * fields and leaves a thirteenth type unshown, so we define them below, the AsyncAPI document marks them
 * and docs/events.md describes them.
 */
const id = z.string().min(1).max(200);
/**
 * The server an event is about. `server_slug` is the catalogue template's slug in every event (the
 * product specification's lifecycle events put the installation's name there; we carry that name as
 * `installation_name`, as `mcp.tools.discovered` does, see docs/events.md), so one field never has two
 * meanings.
 */
const serverRef = {
  server_id: id,
  server_slug: z.string().min(1).max(200),
  installation_name: z.string().min(1).max(200),
  team_id: id,
};

export const clientTypes = ['vscode', 'cursor', 'claude', 'unknown'] as const;
export const clientType = z.enum(clientTypes);
export type ClientType = z.infer<typeof clientType>;

export const eventDataSchemas = {
  'mcp.server.started': z.object({
    ...serverRef,
    process_id: z.number().int(),
    transport: z.literal('stdio'),
    tool_count: z.number().int().min(0),
    spawn_duration_ms: z.number().min(0),
  }),
  'mcp.server.crashed': z.object({
    ...serverRef,
    process_id: z.number().int(),
    exit_code: z.number().int().nullable(),
    signal: z.string().nullable(),
    uptime_seconds: z.number().min(0),
    crash_count: z.number().int().min(1),
    will_restart: z.boolean(),
  }),
  'mcp.server.restarted': z.object({
    ...serverRef,
    old_process_id: z.number().int(),
    new_process_id: z.number().int(),
    restart_reason: z.literal('crash'),
    attempt_number: z.number().int().min(1).max(3),
  }),
  'mcp.server.permanently_failed': z.object({
    ...serverRef,
    total_crashes: z.number().int().min(1),
    last_error: z.string().max(4000),
    failed_at: isoTimestamp,
  }),
  'mcp.server.dormant': z.object({
    ...serverRef,
    process_id: z.number().int(),
    idle_duration_seconds: z.number().min(0),
    last_activity_at: isoTimestamp,
  }),
  'mcp.server.respawned': z.object({
    ...serverRef,
    process_id: z.number().int(),
    dormant_duration_seconds: z.number().min(0),
    respawn_duration_ms: z.number().min(0),
  }),
  'mcp.client.connected': z.object({
    session_id: z.string().min(1).max(200),
    client_type: clientType,
    user_agent: z.string().max(1000),
    // What the client calls itself in initialize (`clientInfo`); absent from satellites older than it.
    client_name: z.string().max(200).nullable().optional(),
    client_version: z.string().max(100).nullable().optional(),
    team_id: id.nullable(),
    // `sse`: a 2025 session. Ours: `stateless`, a 2026-07-28 client, which opens no session; its
    // `session_id` names the satellite's record of it, from its first request until it is idle.
    transport: z.enum(['sse', 'stateless']),
    ip_address: z.string().max(100),
  }),
  // Ours: a session's running tool-call count while it lasts (the disconnection carries the final one).
  'mcp.client.activity': z.object({
    session_id: z.string().min(1).max(200),
    team_id: id.nullable(),
    tool_execution_count: z.number().int().min(0),
    last_activity_at: isoTimestamp,
  }),
  'mcp.client.disconnected': z.object({
    session_id: z.string().min(1).max(200),
    team_id: id.nullable(),
    connection_duration_seconds: z.number().min(0),
    tool_execution_count: z.number().int().min(0),
    disconnect_reason: z.enum(['client_close', 'timeout', 'error']),
  }),
  'mcp.tools.discovered': z.object({
    installation_id: id,
    installation_name: z.string().min(1).max(200),
    team_id: id,
    server_slug: z.string().min(1).max(200),
    tool_count: z.number().int().min(0),
    total_tokens: z.number().int().min(0),
    tools: z.array(
      z.object({
        tool_name: z.string().min(1).max(200),
        description: z.string().max(10000),
        input_schema: z.record(z.string(), z.unknown()),
        token_count: z.number().int().min(0),
        /** The tool's behaviour hints (destructiveHint decides confirmation), when its server gives them. */
        annotations: z.record(z.string(), z.unknown()).optional(),
        output_schema: z.record(z.string(), z.unknown()).optional(),
        /** SHA-256 of the tool's definition (toolDefinitionOf), which the installations service pins. */
        definition_hash: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .optional(),
      }),
    ),
    discovered_at: isoTimestamp,
  }),
  'mcp.tools.updated': z.object({
    ...serverRef,
    added_tools: z.array(z.string()),
    removed_tools: z.array(z.string()),
    total_tools: z.number().int().min(0),
  }),
  'config.refreshed': z.object({
    config_hash: z.string().regex(/^[0-9a-f]{12}$/),
    server_count: z.number().int().min(0),
    teams_count: z.number().int().min(0),
    change_detected: z.boolean(),
    fetch_duration_ms: z.number().min(0),
  }),
  'config.error': z.object({
    error_type: z.literal('server_error'),
    error_message: z.string().max(4000),
    status_code: z.number().int().nullable(),
    retry_in: z.number().min(0),
  }),
  /** Ours: the product specification names it and its statuses but not its fields (docs/events.md). */
  'mcp.server.status_changed': z.object({
    ...serverRef,
    status: installationStatus,
    previous_status: installationStatus.nullable(),
    status_message: z.string().max(4000).nullable(),
    /** What moved the status: a credential check, an offline server's recovery, the process, or a new configuration. */
    reason: z.enum(['credential_validation', 'recovery', 'process', 'configuration']),
    changed_at: isoTimestamp,
  }),
  /** Ours, the thirteenth type: one tool execution, for the installation's request log. */
  'mcp.tool.executed': z.object({
    installation_id: id,
    team_id: id,
    server_slug: z.string().min(1).max(200),
    tool_name: z.string().min(1).max(200),
    session_id: z.string().max(200).nullable(),
    request_params: z.record(z.string(), z.unknown()),
    /** Present only when the installation's request_logging_enabled is true. */
    tool_response: z.unknown().optional(),
    duration_ms: z.number().min(0),
    success: z.boolean(),
    error_message: z.string().max(4000).nullable(),
    executed_at: isoTimestamp,
  }),
  /** Ours: a batch of a stdio server's stderr lines, for the installation's server logs. */
  'mcp.server.logs': z.object({
    installation_id: id,
    team_id: id,
    server_slug: z.string().min(1).max(200),
    lines: z
      .array(
        z.object({
          log_level: z.enum(['debug', 'info', 'warn', 'error']),
          message: z.string().max(8192),
          timestamp: isoTimestamp,
        }),
      )
      .min(1)
      .max(500),
  }),
} as const;

export type SatelliteEventType = keyof typeof eventDataSchemas;
export const satelliteEventTypes = Object.keys(eventDataSchemas) as [SatelliteEventType, ...SatelliteEventType[]];
export type SatelliteEventData<T extends SatelliteEventType> = z.infer<(typeof eventDataSchemas)[T]>;

/**
 * The envelope of every event: `type`, `timestamp` (ISO 8601), `data` (per type), plus `id`, a client-side event
 * id the satellite generates once, so that a retried batch is stored once (it becomes Nats-Msg-Id).
 */
export const eventEnvelope = z.object({
  id: z.uuid(),
  type: z.enum(satelliteEventTypes),
  timestamp: isoTimestamp,
  data: z.record(z.string(), z.unknown()),
});

export type SatelliteEvent = {
  [T in SatelliteEventType]: { id: string; type: T; timestamp: string; data: SatelliteEventData<T> };
}[SatelliteEventType];

/**
 * Fields of event data that name an installation (`server_id` is one too). The backend issues
 * installation ids as UUIDs; the event schemas accept any id (a standalone satellite names its servers
 * itself), and a satellite may write a UUID in capitals.
 */
export const installationIdFields = ['installation_id', 'server_id'] as const;
/** Whether an id has the shape of an installation id the backend issued (a UUID, in any case). */
export function isIssuedInstallationId(id: string): boolean {
  return isUuidShaped(id);
}

/**
 * Fields compared in canonical form: the installation ids, and the team id, which the backend issues as
 * a UUID too. A team id of another shape (a test's `team-1`) is compared as written.
 */
const canonicalFields = [...installationIdFields, 'team_id'] as const;

/**
 * The event in the form its ids are compared, stored and announced in: its id (a UUID, by the envelope),
 * the installation ids and the team id of its data canonical (the same event when they are already). A
 * UUID names the same thing in either case, so a global satellite naming its team in capitals reaches
 * that team's installation, and still only that team's.
 */
export function canonicalSatelliteEvent<E extends SatelliteEvent>(event: E): E {
  const data = event.data as Record<string, unknown>;
  let canonical: Record<string, unknown> | null = null;
  for (const field of canonicalFields) {
    const value = data[field];
    if (typeof value !== 'string') continue;
    const id = canonicalId(value);
    if (id !== value) canonical = { ...(canonical ?? data), [field]: id };
  }
  const id = canonicalId(event.id);
  if (!canonical && id === event.id) return event;
  return { ...event, id, data: canonical ?? event.data } as E;
}

/** Validates one event: the envelope, then the data against its type's schema. */
export function parseSatelliteEvent(
  value: unknown,
): { success: true; event: SatelliteEvent } | { success: false; issues: { path: string; message: string }[] } {
  const envelope = eventEnvelope.safeParse(value);
  if (!envelope.success) {
    return {
      success: false,
      issues: envelope.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    };
  }
  const data = eventDataSchemas[envelope.data.type].safeParse(envelope.data.data);
  if (!data.success) {
    return {
      success: false,
      issues: data.error.issues.map((i) => ({ path: ['data', ...i.path].join('.'), message: i.message })),
    };
  }
  return { success: true, event: { ...envelope.data, data: data.data } as SatelliteEvent };
}
