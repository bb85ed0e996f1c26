import { z } from 'zod';
import { canonicalId, uuidField } from '../ids.ts';
import { isoTimestamp } from '../isoTimestamp.ts';

export const commandTypes = ['spawn', 'kill', 'restart', 'configure', 'health_check'] as const;
export const commandType = z.enum(commandTypes);
export type CommandType = z.infer<typeof commandType>;

/** In polling order: immediate first. */
export const commandPriorities = ['immediate', 'high', 'normal', 'low'] as const;
export const commandPriority = z.enum(commandPriorities);
export type CommandPriority = z.infer<typeof commandPriority>;

export const configureEvents = [
  'mcp_installation_created',
  'mcp_installation_updated',
  'mcp_installation_deleted',
  'mcp_recovery',
] as const;
export const configureEvent = z.enum(configureEvents);

/** A team or installation id of a payload, in the form the queue compares it with its satellites' teams. */
const payloadId = z.string().min(1).overwrite(canonicalId);
const teamScope = { team_id: payloadId };

export const spawnPayload = z.object({ ...teamScope, installation_id: payloadId });
export const killPayload = z.object({ ...teamScope, installation_id: payloadId });
export const restartPayload = z.object({ ...teamScope, installation_id: payloadId });
export const configurePayload = z.object({
  ...teamScope,
  event: configureEvent,
  installation_id: payloadId.optional(),
});
export const healthCheckPayload = z.object({
  ...teamScope,
  check_type: z.enum(['credential_validation', 'process']),
  installation_id: payloadId,
});

export const commandPayloads = {
  spawn: spawnPayload,
  kill: killPayload,
  restart: restartPayload,
  configure: configurePayload,
  health_check: healthCheckPayload,
} as const;

/** A command as the satellite receives it from polling; every command carries its team scope. */
export const satelliteCommand = z.discriminatedUnion('command_type', [
  ...commandTypes.map((type) =>
    z.object({
      id: z.string(),
      command_type: z.literal(type),
      priority: commandPriority,
      payload: commandPayloads[type],
      correlation_id: z.string().nullable(),
      created_at: isoTimestamp,
      expires_at: isoTimestamp.nullable(),
    }),
  ),
] as unknown as [z.ZodObject, ...z.ZodObject[]]);
export type SatelliteCommand = {
  [T in CommandType]: {
    id: string;
    command_type: T;
    priority: CommandPriority;
    payload: z.infer<(typeof commandPayloads)[T]>;
    correlation_id: string | null;
    created_at: string;
    expires_at: string | null;
  };
}[CommandType];

export const pollingModes = ['immediate', 'high', 'normal', 'slow'] as const;
export const pollingMode = z.enum(pollingModes);

/** The registry's answer to a poll: the leased commands and when to poll next. */
export const commandPollReply = z.object({
  commands: z.array(satelliteCommand),
  polling: z.object({ mode: pollingMode, next_poll_ms: z.number().int().positive() }),
});

/** Longest a poll may be held open waiting for a command (below common proxy idle timeouts of 30-60 s). */
export const maxCommandWaitMs = 30_000;

/**
 * GET /api/satellites/:id/commands?wait_ms=N. With `wait_ms` the gateway holds the poll until a command
 * for the satellite is created (through any replica) or the wait ends: the satellite learns of a command
 * at once while only ever calling out. Without it the poll answers at once, as before.
 */
export const commandPollQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    wait_ms: z.coerce.number().int().min(0).max(maxCommandWaitMs).default(0),
  })
  .strict();

/**
 * What the satellite receives: the registry's reply, plus `long_poll_ms` when the gateway held the poll
 * (a satellite polls again at once after such an answer, since the wait itself paces it), and
 * `settings_changed_at`, the time of the last change of platform settings the gateway knows of (null
 * when it knows none yet): a satellite that sees it change fetches its configuration again.
 */
export const commandPollAnswer = commandPollReply.extend({
  long_poll_ms: z.number().int().min(0).optional(),
  settings_changed_at: isoTimestamp.nullable().optional(),
});
export type CommandPollAnswer = z.infer<typeof commandPollAnswer>;

export const commandResultStatus = z.enum(['acknowledged', 'executing', 'completed', 'failed']);
/** POST /api/satellites/:id/command-results. Idempotent by command id and status: a retried report changes nothing. */
export const commandResult = z.object({
  command_id: uuidField('must be a command id (UUID)'),
  status: commandResultStatus,
  result: z.record(z.string(), z.unknown()).optional(),
  error_message: z.string().max(4000).optional(),
});
export type CommandResult = z.infer<typeof commandResult>;

/** Results of a credential validation health check, as the status table reads them. */
export const credentialValidationOutcome = z.enum(['valid', 'token_expired', 'token_revoked', 'failed']);
