import { z } from 'zod';

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

const teamScope = { team_id: z.string().min(1) };

export const spawnPayload = z.object({ ...teamScope, installation_id: z.string().min(1) });
export const killPayload = z.object({ ...teamScope, installation_id: z.string().min(1) });
export const restartPayload = z.object({ ...teamScope, installation_id: z.string().min(1) });
export const configurePayload = z.object({
  ...teamScope,
  event: configureEvent,
  installation_id: z.string().min(1).optional(),
});
export const healthCheckPayload = z.object({
  ...teamScope,
  check_type: z.enum(['credential_validation', 'process']),
  installation_id: z.string().min(1),
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
      created_at: z.iso.datetime({ offset: true }),
      expires_at: z.iso.datetime({ offset: true }).nullable(),
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

/** GET /api/satellites/:id/commands: the leased commands and when to poll next. */
export const commandPollReply = z.object({
  commands: z.array(satelliteCommand),
  polling: z.object({ mode: pollingMode, next_poll_ms: z.number().int().positive() }),
});

export const commandResultStatus = z.enum(['acknowledged', 'executing', 'completed', 'failed']);
/** POST /api/satellites/:id/command-results (DESIGN.md). Idempotent by command id and status. */
export const commandResult = z.object({
  command_id: z.uuid('must be a command id (UUID)'),
  status: commandResultStatus,
  result: z.record(z.string(), z.unknown()).optional(),
  error_message: z.string().max(4000).optional(),
});
export type CommandResult = z.infer<typeof commandResult>;

/** Results of a credential validation health check, as the status table reads them. */
export const credentialValidationOutcome = z.enum(['valid', 'token_expired', 'token_revoked', 'failed']);
