import type { Bus, HandlerContext } from '@orbital/bus';
import { identityTeamGetSubject, identityUserMembershipsSubject } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { IdentityStore } from './identityStore.ts';

function requirePlatformService(context: HandlerContext): void {
  if (context.identity.kind !== 'service') {
    throw new AppError('forbidden', 'Identity facts are answered to platform services only');
  }
}

/** The identity.* subjects other services use to enforce team scope themselves (queue group `identity`). */
export function serveIdentitySubjects(bus: Bus, store: IdentityStore): void {
  bus.serve(identityTeamGetSubject, async ({ teamId }, context) => {
    requirePlatformService(context);
    const team = await store.getTeam(teamId);
    if (!team) throw new AppError('not_found', 'No such team');
    return { id: team.id, slug: team.slug, name: team.name };
  });

  bus.serve(identityUserMembershipsSubject, async ({ userId }, context) => {
    requirePlatformService(context);
    const user = await store.getUser(userId);
    if (!user) throw new AppError('not_found', 'No such user');
    const memberships = await store.membershipsOf(userId);
    return {
      userId,
      globalRole: user.global_role,
      memberships: memberships.map((m) => ({ teamId: m.team_id, teamSlug: m.team_slug, role: m.role })),
    };
  });
}
