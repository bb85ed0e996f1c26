import { z } from 'zod';
import { serviceAccess } from '../access/subjectAccess.ts';
import { defineBroadcast } from '../events/defineBroadcast.ts';
import { uuidField } from '../ids.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { defineSubject } from '../subject.ts';

export const teamFacts = z.object({ id: z.string(), slug: z.string(), name: z.string() });
export type TeamFacts = z.infer<typeof teamFacts>;

export const identityTeamGetSubject = defineSubject({
  subject: 'identity.team.get',
  service: 'identity',
  description:
    'A team by id: its id, slug and name (the slug is part of every process id). not_found when it does not exist.',
  access: serviceAccess('installations'),
  request: z.object({ team_id: uuidField() }).strict(),
  reply: teamFacts,
});

/**
 * A satellite stopped sending heartbeats: identity mails a notice to every enabled global admin (the
 * `smtp` settings configure the server "for sending notifications"). The registry asks once per outage;
 * asking again for the same outage (a retry after a lost reply, two registry replicas) queues nothing
 * more. `mail: 'off'` when `global.send_mail` is off: nothing is queued, and nothing is sent later.
 */
export const identitySatelliteOfflineNoticeSubject = defineSubject({
  subject: 'identity.notice.satellite_offline',
  service: 'identity',
  description:
    'Queues the "satellite offline" mail to every enabled global admin, once per outage (by satellite and last heartbeat).',
  access: serviceAccess('satellite-registry'),
  request: z
    .object({
      satellite_id: uuidField(),
      name: z.string().min(1).max(200),
      satellite_type: z.enum(['global', 'team']),
      team_id: z.string().nullable(),
      /** The last heartbeat before the outage: with the satellite, the outage's identity. */
      last_heartbeat_at: isoTimestamp,
    })
    .strict(),
  reply: z.object({ mail: z.enum(['queued', 'off']), queued: z.number().int() }),
});

/**
 * Drop cached sessions: of one session (logout) or of one user (revocation, membership change).
 * Sent after the change has committed; each replica replies once it has evicted, so the sender can
 * answer its own request only when every known replica has forgotten the session.
 */
export const sessionInvalidation = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('session'), session_id: z.string() }),
  z.object({ kind: z.literal('user'), user_id: z.string() }),
]);
export type SessionInvalidation = z.infer<typeof sessionInvalidation>;

export const replicaAck = z.object({ replica_id: z.string() });

export const sessionInvalidationBroadcast = defineBroadcast({
  subject: 'identity.cache.invalidate',
  producer: 'gateway-api',
  listeners: ['gateway-api'],
  description:
    'To every gateway-api replica: evict cached sessions of one session or of one user; each replica replies with its id.',
  payload: sessionInvalidation,
  reply: replicaAck,
});

export const replicaAnnouncementBroadcast = defineBroadcast({
  subject: 'identity.replica.announce',
  producer: 'gateway-api',
  listeners: ['gateway-api'],
  description:
    'Sent by a gateway-api replica when it starts or reconnects; every replica records it and replies with its own id, so each knows whom to wait for after a revocation.',
  payload: replicaAck,
  reply: replicaAck,
});
