import { type CallerIdentity, type ClientActivityQuery, clientActivityScope } from '@orbital/contracts';
import type { LivePool } from '@orbital/db';
import { AppError } from '@orbital/errors';
import { listClientSessions } from '../db/clientSessionQueries.ts';

/** GET /api/users/me/mcp/client-activity: recent client sessions within the caller's scope, newest first. */
export async function listClientActivity(pool: LivePool, identity: CallerIdentity, query: ClientActivityQuery) {
  const scope = clientActivityScope(identity, query);
  if ('refused' in scope) {
    throw new AppError(scope.refused, 'Client activity is shown to members of the teams the sessions served');
  }
  if (scope.teams !== null && scope.teams.length === 0) return { items: [] };
  return { items: [...(await listClientSessions(pool.get(), scope.teams, query))] };
}
