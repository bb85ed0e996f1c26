import { z } from 'zod';

export const globalRoles = ['global_admin', 'global_user'] as const;
export const teamRoles = ['team_admin', 'team_user'] as const;
export const globalRole = z.enum(globalRoles);
export const teamRole = z.enum(teamRoles);
export type GlobalRole = z.infer<typeof globalRole>;
export type TeamRole = z.infer<typeof teamRole>;

export const membership = z.object({ teamId: z.string(), role: teamRole });
export type Membership = z.infer<typeof membership>;

/**
 * Who a request is made for. gateway-api puts it in a header of every NATS request it sends; the
 * receiving service enforces team scope with it instead of trusting the caller to have filtered.
 */
export const callerIdentity = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('user'),
    userId: z.string(),
    globalRole,
    memberships: z.array(membership),
  }),
  z.object({
    kind: z.literal('satellite'),
    satelliteId: z.string(),
    satelliteType: z.enum(['global', 'team']),
    teamId: z.string().nullable(),
  }),
  z.object({ kind: z.literal('service'), service: z.string() }),
  z.object({ kind: z.literal('anonymous') }),
]);
export type CallerIdentity = z.infer<typeof callerIdentity>;

export const anonymousIdentity: CallerIdentity = { kind: 'anonymous' };

export function serviceIdentity(service: string): CallerIdentity {
  return { kind: 'service', service };
}
