import { z } from 'zod';
import { type ProcessName, processName } from './processes.ts';

export const globalRoles = ['global_admin', 'global_user'] as const;
export const teamRoles = ['team_admin', 'team_user'] as const;
export const globalRole = z.enum(globalRoles);
export const teamRole = z.enum(teamRoles);
export type GlobalRole = z.infer<typeof globalRole>;
export type TeamRole = z.infer<typeof teamRole>;

export const membership = z.object({ team_id: z.string(), role: teamRole });
export type Membership = z.infer<typeof membership>;

/**
 * Who a request is made for. gateway-api puts it in a header of every NATS request it sends; the
 * receiving service's `bus.serve` checks it against the subject's declared access instead of trusting
 * the caller to have filtered.
 */
export const callerIdentity = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('user'),
    user_id: z.string(),
    global_role: globalRole,
    memberships: z.array(membership),
  }),
  z.object({
    kind: z.literal('satellite'),
    satellite_id: z.string(),
    satellite_type: z.enum(['global', 'team']),
    team_id: z.string().nullable(),
  }),
  z.object({ kind: z.literal('service'), service: processName }),
  z.object({ kind: z.literal('anonymous') }),
]);
export type CallerIdentity = z.infer<typeof callerIdentity>;
export type UserIdentity = Extract<CallerIdentity, { kind: 'user' }>;
export type SatelliteIdentity = Extract<CallerIdentity, { kind: 'satellite' }>;

export const anonymousIdentity: CallerIdentity = { kind: 'anonymous' };

export function serviceIdentity(service: ProcessName): CallerIdentity {
  return { kind: 'service', service };
}
