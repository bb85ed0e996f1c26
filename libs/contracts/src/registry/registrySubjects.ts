import { z } from 'zod';
import {
  commandPollReply,
  commandPriority,
  commandResult,
  commandResultStatus,
  commandType,
} from '../satellite/commands.ts';
import { satelliteConfiguration } from '../satellite/serverConfiguration.ts';
import { defineSubject } from '../subject.ts';
import {
  createdRegistrationToken,
  createRegistrationTokenBody,
  heartbeatBody,
  heartbeatReply,
  ipAllowlist,
  registerSatelliteBody,
  registerSatelliteReply,
  registrationTokenView,
  satelliteMetrics,
  satelliteMetricsQuery,
  satelliteStatus,
  satelliteType,
  satelliteView,
} from './registrySchemas.ts';

const satelliteId = z.uuid();
const teamId = z.string().min(1).max(200);
const bySatellite = z.object({ satellite_id: satelliteId }).strict();

/**
 * Where a token request comes from: the global path (`/api/satellites/registration-tokens`) or a team's
 * (`/api/teams/:teamId/satellites/registration-tokens`). The registry checks the caller's role for it.
 */
const tokenScopeRef = z.discriminatedUnion('scope', [
  z.object({ scope: z.literal('global') }).strict(),
  z.object({ scope: z.literal('team'), team_id: teamId }).strict(),
]);

export const storedCommandStatus = z.enum([
  'pending',
  'leased',
  'acknowledged',
  'executing',
  'completed',
  'failed',
  'expired',
]);

export const commandView = z.object({
  id: z.uuid(),
  satellite_id: satelliteId,
  team_id: z.string(),
  command_type: commandType,
  priority: commandPriority,
  payload: z.record(z.string(), z.unknown()),
  correlation_id: z.string().nullable(),
  status: storedCommandStatus,
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  result: z.record(z.string(), z.unknown()).nullable(),
  error_message: z.string().nullable(),
  created_at: z.iso.datetime({ offset: true }),
  expires_at: z.iso.datetime({ offset: true }).nullable(),
  updated_at: z.iso.datetime({ offset: true }),
});
export type CommandView = z.infer<typeof commandView>;

/**
 * A new command. With `satellite_id` it goes to that satellite; without, to every satellite that serves
 * the payload's team (its team satellites and every global satellite), one queue entry each. The
 * payload is validated against its command type, and its `team_id` is the command's team scope.
 */
export const createCommandRequest = z
  .object({
    satellite_id: satelliteId.optional(),
    command_type: commandType,
    priority: commandPriority.default('normal'),
    payload: z.record(z.string(), z.unknown()),
    correlation_id: z.string().min(1).max(200).optional(),
    /** After this the command is dropped from the queue (status `expired`) if not yet done; the registry's COMMAND_DEFAULT_EXPIRY_MS when not given. */
    expires_in_ms: z
      .number()
      .int()
      .min(1000)
      .max(7 * 24 * 3600 * 1000)
      .optional(),
    /** Deliveries before an unacknowledged command is given up (status `failed`). */
    max_attempts: z.number().int().min(1).max(20).default(3),
  })
  .strict();

export const registrySubjects = {
  createToken: defineSubject({
    subject: 'registry.token.create',
    service: 'registry',
    description:
      'Generates a single-use registration token (HS256 JWT). Global scope: global_admin. Team scope: global_admin, the team_admin of the team, or a global_user who is a member of it.',
    request: z.object({ target: tokenScopeRef, options: createRegistrationTokenBody }).strict(),
    reply: createdRegistrationToken,
  }),
  listTokens: defineSubject({
    subject: 'registry.token.list',
    service: 'registry',
    description: 'Registration tokens of a scope, newest first, without the tokens themselves.',
    request: z.object({ target: tokenScopeRef }).strict(),
    reply: z.array(registrationTokenView),
  }),
  revokeToken: defineSubject({
    subject: 'registry.token.revoke',
    service: 'registry',
    description: 'Revokes an unused registration token of the given scope; not_found outside that scope.',
    request: z.object({ target: tokenScopeRef, token_id: z.uuid() }).strict(),
    reply: registrationTokenView,
  }),
  register: defineSubject({
    subject: 'registry.satellite.register',
    service: 'registry',
    description:
      'Registers a satellite with the Authorization header it sent (Bearer service_satellite_<token>): verifies and consumes the token atomically, issues the API key once.',
    request: z
      .object({
        authorization: z.string().max(8192).nullable(),
        client_ip: z.string().max(100),
        body: registerSatelliteBody,
      })
      .strict(),
    reply: registerSatelliteReply,
  }),
  lookupApiKey: defineSubject({
    subject: 'registry.apikey.lookup',
    service: 'registry',
    description:
      "The satellite an API key id names, with the key's Argon2 hash, for gateway-api to verify the secret itself. gateway-api only.",
    request: z.object({ key_id: z.string().min(1).max(100) }).strict(),
    reply: z.object({
      satellite_id: satelliteId,
      satellite_type: satelliteType,
      team_id: z.string().nullable(),
      status: satelliteStatus,
      api_key_hash: z.string(),
      ip_allowlist: ipAllowlist,
    }),
  }),
  heartbeat: defineSubject({
    subject: 'registry.heartbeat.record',
    service: 'registry',
    description:
      'Stores a heartbeat (system and per-process metrics); the first moves the satellite from inactive to active.',
    request: z.object({ satellite_id: satelliteId, heartbeat: heartbeatBody }).strict(),
    reply: heartbeatReply,
  }),
  pollCommands: defineSubject({
    subject: 'registry.command.poll',
    service: 'registry',
    description:
      "Leases the satellite's pending commands (priority, then age) and says when to poll next; [] while inactive.",
    request: z.object({ satellite_id: satelliteId, limit: z.number().int().min(1).max(100).default(20) }).strict(),
    reply: commandPollReply,
  }),
  reportResult: defineSubject({
    subject: 'registry.command.result',
    service: 'registry',
    description: "Records a command's progress or result; idempotent by command id and status.",
    request: z.object({ satellite_id: satelliteId, result: commandResult }).strict(),
    reply: z.object({ command_id: z.uuid(), status: commandResultStatus, changed: z.boolean() }),
  }),
  createCommand: defineSubject({
    subject: 'registry.command.create',
    service: 'registry',
    description:
      "Queues a command for one satellite or for every satellite serving the payload's team. Platform services and global admins.",
    request: createCommandRequest,
    reply: z.object({ commands: z.array(commandView) }),
  }),
  getCommand: defineSubject({
    subject: 'registry.command.get',
    service: 'registry',
    description: 'One command with its status, attempts and result. Platform services and global admins.',
    request: z.object({ command_id: z.uuid() }).strict(),
    reply: commandView,
  }),
  getConfiguration: defineSubject({
    subject: 'registry.config.get',
    service: 'registry',
    description:
      "The merged server configuration of the satellite's installations (all teams for a global satellite, its team's for a team satellite).",
    request: bySatellite,
    reply: satelliteConfiguration,
  }),
  listSatellites: defineSubject({
    subject: 'registry.satellite.list',
    service: 'registry',
    description:
      'Satellites the caller may see: every one for a global admin, the team satellites of their teams for others; optionally one team.',
    request: z.object({ team_id: teamId.optional() }).strict(),
    reply: z.array(satelliteView),
  }),
  getSatellite: defineSubject({
    subject: 'registry.satellite.get',
    service: 'registry',
    description: 'One satellite, if the caller may see it (not_found otherwise).',
    request: bySatellite,
    reply: satelliteView,
  }),
  getMetrics: defineSubject({
    subject: 'registry.satellite.metrics',
    service: 'registry',
    description: "A satellite's heartbeat time series (newest first) and the latest metrics of each process.",
    request: z.object({ satellite_id: satelliteId, query: satelliteMetricsQuery }).strict(),
    reply: satelliteMetrics,
  }),
  revokeSatellite: defineSubject({
    subject: 'registry.satellite.revoke',
    service: 'registry',
    description:
      "Revokes a satellite's API key (status revoked); every gateway replica drops it from its cache at once.",
    request: bySatellite,
    reply: satelliteView,
  }),
  updateAllowlist: defineSubject({
    subject: 'registry.allowlist.update',
    service: 'registry',
    description: "Replaces a team satellite's IP allowlist (empty: any address).",
    request: z.object({ satellite_id: satelliteId, ip_allowlist: ipAllowlist }).strict(),
    reply: satelliteView,
  }),
} as const;

/**
 * Broadcast (no queue group) when a satellite's credentials or allowlist change: every gateway-api
 * replica drops its cached verification of that satellite's key before the next request.
 */
export const apiKeyInvalidatedSubject = 'registry.apikey.invalidated';
export const apiKeyInvalidated = z.object({ satellite_id: satelliteId });
