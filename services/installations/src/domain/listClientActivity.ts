import type { ClientActivityQuery } from '@orbital/contracts';
import type { LivePool } from '@orbital/db';
import { listClientSessions } from '../db/clientSessionQueries.ts';

/**
 * GET /api/users/me/mcp/client-activity: recent client sessions of the given teams (null: every team,
 * sessions of no team included), newest first.
 */
export async function listClientActivity(pool: LivePool, teams: string[] | null, query: ClientActivityQuery) {
  if (teams !== null && teams.length === 0) return { items: [] };
  return { items: [...(await listClientSessions(pool.get(), teams, query))] };
}
