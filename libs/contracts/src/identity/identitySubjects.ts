import { z } from 'zod';
import { serviceAccess } from '../access/subjectAccess.ts';
import { defineBroadcast } from '../events/defineBroadcast.ts';
import { uuidField } from '../ids.ts';
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
