import { z } from 'zod';
import {
  globalAccess,
  publicAccess,
  type SubjectAccess,
  satelliteAccess,
  serviceAccess,
} from '../access/subjectAccess.ts';
import { defineBroadcast } from '../events/defineBroadcast.ts';
import { teamIdField, uuidField } from '../ids.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
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

const satelliteId = uuidField();
const teamId = teamIdField;
const bySatellite = z.object({ satellite_id: satelliteId }).strict();

/**
 * Where a token request comes from: the global path (`/api/satellites/registration-tokens`) or a team's
 * (`/api/teams/:teamId/satellites/registration-tokens`). Global tokens are for global admins; a team's
 * need the permission in that team.
 */
const tokenScopeRef = z.discriminatedUnion('scope', [
  z.object({ scope: z.literal('global') }).strict(),
  z.object({ scope: z.literal('team'), team_id: teamId }).strict(),
]);

const tokenAccess = (permission: 'satellites.register' | 'tokens.manage'): SubjectAccess => ({
  users: { kind: 'team', permission, team: 'target.team_id', without_team: 'satellites.manage_global' },
});
const seeSatellite: SubjectAccess = { users: { kind: 'record_team', permission: 'satellites.view' } };
const manageSatellite: SubjectAccess = {
  users: { kind: 'record_team', permission: 'satellites.manage', seen_with: 'satellites.view' },
};
/** A satellite's own reads (its commands, its configuration): the satellite, or a global admin looking at it. */
const ownOrGlobalAdmin: SubjectAccess = { ...satelliteAccess(), ...globalAccess('satellites.manage_global') };
const commandAccess: SubjectAccess = { ...globalAccess('satellites.manage_global'), ...serviceAccess('installations') };

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
  created_at: isoTimestamp,
  expires_at: isoTimestamp.nullable(),
  updated_at: isoTimestamp,
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
    access: tokenAccess('satellites.register'),
    description:
      'Generates a single-use registration token (HS256 JWT). Global scope: global_admin. Team scope: global_admin, the team_admin of the team, or a global_user who is a member of it.',
    request: z.object({ target: tokenScopeRef, options: createRegistrationTokenBody }).strict(),
    reply: createdRegistrationToken,
  }),
  listTokens: defineSubject({
    subject: 'registry.token.list',
    service: 'registry',
    access: tokenAccess('tokens.manage'),
    description: 'Registration tokens of a scope, newest first, without the tokens themselves.',
    request: z.object({ target: tokenScopeRef }).strict(),
    reply: z.array(registrationTokenView),
  }),
  revokeToken: defineSubject({
    subject: 'registry.token.revoke',
    service: 'registry',
    access: tokenAccess('tokens.manage'),
    description: 'Revokes an unused registration token of the given scope; not_found outside that scope.',
    request: z.object({ target: tokenScopeRef, token_id: uuidField() }).strict(),
    reply: registrationTokenView,
  }),
  register: defineSubject({
    subject: 'registry.satellite.register',
    service: 'registry',
    access: publicAccess,
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
    access: serviceAccess('gateway-api'),
    description:
      "The satellite an API key id names, with the key's Argon2 hash and its fast digest (null until the key is first verified), for gateway-api to verify the secret itself. gateway-api only.",
    request: z.object({ key_id: z.string().min(1).max(100) }).strict(),
    reply: z.object({
      satellite_id: satelliteId,
      satellite_type: satelliteType,
      team_id: z.string().nullable(),
      status: satelliteStatus,
      api_key_hash: z.string(),
      api_key_digest: z.string().nullable(),
      ip_allowlist: ipAllowlist,
    }),
  }),
  rememberApiKeyDigest: defineSubject({
    subject: 'registry.apikey.remember',
    service: 'registry',
    access: serviceAccess('gateway-api'),
    description:
      'Stores the fast digest of a key gateway-api has just verified with Argon2, if the row still holds the hash it was verified against and no digest yet, so no replica runs Argon2 for that key again. gateway-api only.',
    request: z
      .object({
        key_id: z.string().min(1).max(100),
        api_key_hash: z.string().min(1).max(1000),
        api_key_digest: z.string().min(1).max(200),
      })
      .strict(),
    reply: z.object({ stored: z.boolean() }),
  }),
  heartbeat: defineSubject({
    subject: 'registry.heartbeat.record',
    service: 'registry',
    access: satelliteAccess(),
    description:
      'Stores a heartbeat (system and per-process metrics); the first moves the satellite from inactive to active.',
    request: z.object({ satellite_id: satelliteId, heartbeat: heartbeatBody }).strict(),
    reply: heartbeatReply,
  }),
  pollCommands: defineSubject({
    subject: 'registry.command.poll',
    service: 'registry',
    access: ownOrGlobalAdmin,
    description:
      "Leases the satellite's pending commands (priority, then age) and says when to poll next; [] while inactive. A global admin gets what the next poll would lease, nothing leased.",
    request: z.object({ satellite_id: satelliteId, limit: z.number().int().min(1).max(100).default(20) }).strict(),
    reply: commandPollReply,
  }),
  reportResult: defineSubject({
    subject: 'registry.command.result',
    service: 'registry',
    access: satelliteAccess(),
    description: "Records a command's progress or result; idempotent by command id and status.",
    request: z.object({ satellite_id: satelliteId, result: commandResult }).strict(),
    reply: z.object({ command_id: z.uuid(), status: commandResultStatus, changed: z.boolean() }),
  }),
  createCommand: defineSubject({
    subject: 'registry.command.create',
    service: 'registry',
    access: commandAccess,
    description:
      "Queues a command for one satellite or for every satellite serving the payload's team. Platform services and global admins.",
    request: createCommandRequest,
    reply: z.object({ commands: z.array(commandView) }),
  }),
  getCommand: defineSubject({
    subject: 'registry.command.get',
    service: 'registry',
    access: commandAccess,
    description: 'One command with its status, attempts and result. Platform services and global admins.',
    request: z.object({ command_id: uuidField() }).strict(),
    reply: commandView,
  }),
  getConfiguration: defineSubject({
    subject: 'registry.config.get',
    service: 'registry',
    access: ownOrGlobalAdmin,
    description:
      "The merged server configuration of the satellite's installations (all teams for a global satellite, its team's for a team satellite); for a global admin with environment and header values masked.",
    request: bySatellite,
    reply: satelliteConfiguration,
  }),
  listSatellites: defineSubject({
    subject: 'registry.satellite.list',
    service: 'registry',
    access: {
      users: { kind: 'team', permission: 'satellites.view', team: 'team_id', without_team: 'signed_in' },
    },
    description:
      'Satellites the caller may see: every one for a global admin, the team satellites of their teams for others; optionally one team.',
    request: z.object({ team_id: teamId.optional() }).strict(),
    reply: z.array(satelliteView),
  }),
  getSatellite: defineSubject({
    subject: 'registry.satellite.get',
    service: 'registry',
    access: seeSatellite,
    description: 'One satellite, if the caller may see it (not_found otherwise).',
    request: bySatellite,
    reply: satelliteView,
  }),
  getMetrics: defineSubject({
    subject: 'registry.satellite.metrics',
    service: 'registry',
    access: seeSatellite,
    description: "A satellite's heartbeat time series (newest first) and the latest metrics of each process.",
    request: z.object({ satellite_id: satelliteId, query: satelliteMetricsQuery }).strict(),
    reply: satelliteMetrics,
  }),
  revokeSatellite: defineSubject({
    subject: 'registry.satellite.revoke',
    service: 'registry',
    access: manageSatellite,
    description:
      "Revokes a satellite's API key (status revoked); every gateway replica drops it from its cache at once.",
    request: bySatellite,
    reply: satelliteView,
  }),
  updateAllowlist: defineSubject({
    subject: 'registry.allowlist.update',
    service: 'registry',
    access: manageSatellite,
    description: "Replaces a team satellite's IP allowlist (empty: any address).",
    request: z.object({ satellite_id: satelliteId, ip_allowlist: ipAllowlist }).strict(),
    reply: satelliteView,
  }),
} as const;

/**
 * When a satellite's credentials or allowlist change: every gateway-api replica drops its cached
 * verification of that satellite's key before the next request.
 */
export const apiKeyInvalidatedBroadcast = defineBroadcast({
  subject: 'registry.apikey.invalidated',
  producer: 'satellite-registry',
  listeners: ['gateway-api'],
  description: "A satellite's key was revoked or its allowlist changed: drop its cached verification.",
  payload: z.object({ satellite_id: satelliteId }),
});
