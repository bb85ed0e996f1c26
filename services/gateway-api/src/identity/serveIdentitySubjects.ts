import type { Bus } from '@orbital/bus';
import { identityTeamGetSubject } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { IdentityStore } from './identityStore.ts';

/** The identity.* subjects other services use (queue group `identity`); who may ask is declared with each. */
export function serveIdentitySubjects(bus: Bus, store: IdentityStore): void {
  bus.serve(identityTeamGetSubject, async ({ team_id }) => {
    const team = await store.getTeam(team_id);
    if (!team) throw new AppError('not_found', 'No such team');
    return { id: team.id, slug: team.slug, name: team.name };
  });
}
