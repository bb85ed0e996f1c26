import { z } from 'zod';
import { globalRole, teamRole } from '../identity.ts';
import { defineSubject } from '../subject.ts';

const id = z.uuid();

export const teamFacts = z.object({ id: z.string(), slug: z.string(), name: z.string() });
export type TeamFacts = z.infer<typeof teamFacts>;

export const identityTeamGetSubject = defineSubject({
  subject: 'identity.team.get',
  service: 'identity',
  description: 'A team by id: its id, slug and name. not_found when it does not exist. Platform services only.',
  request: z.object({ teamId: id }).strict(),
  reply: teamFacts,
});

export const userMemberships = z.object({
  userId: z.string(),
  globalRole,
  memberships: z.array(z.object({ teamId: z.string(), teamSlug: z.string(), role: teamRole })),
});
export type UserMemberships = z.infer<typeof userMemberships>;

export const identityUserMembershipsSubject = defineSubject({
  subject: 'identity.user.memberships',
  service: 'identity',
  description:
    "A user's global role and team memberships, as they are now (not as a session cached them). not_found for an unknown user. Platform services only.",
  request: z.object({ userId: id }).strict(),
  reply: userMemberships,
});

/**
 * Broadcast between gateway-api replicas (every replica subscribes, no queue group): drop cached
 * sessions. Sent after a logout or revocation has committed; each replica replies once it has evicted,
 * so the sender can answer its own request only when every known replica has forgotten the session.
 */
export const sessionInvalidation = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('session'), sessionId: z.string() }),
  z.object({ kind: z.literal('user'), userId: z.string() }),
]);
export type SessionInvalidation = z.infer<typeof sessionInvalidation>;

export const replicaAck = z.object({ replicaId: z.string() });

export const identityCacheInvalidateSubject = defineSubject({
  subject: 'identity.cache.invalidate',
  service: 'identity',
  description:
    'Broadcast to every gateway-api replica: evict cached sessions of one session or of one user; each replica replies with its id.',
  request: sessionInvalidation,
  reply: replicaAck,
});

export const identityReplicaAnnounceSubject = defineSubject({
  subject: 'identity.replica.announce',
  service: 'identity',
  description:
    'Broadcast by a gateway-api replica when it starts; every other replica records it and replies with its own id, so each knows whom to wait for after a revocation.',
  request: replicaAck,
  reply: replicaAck,
});
