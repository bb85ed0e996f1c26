import { canonicalId } from '@orbital/contracts';
import type { InstallationRow } from '../db/rows.ts';

/**
 * Whether an installation belongs to the team a satellite event names. The event's ids arrive
 * canonical; the row keeps its team id as it was written when the installation was made, which a
 * global admin may have written as a UUID in capitals, so both sides are compared canonical.
 */
export function belongsToTeam(row: InstallationRow, teamId: string): boolean {
  return canonicalId(row.team_id) === canonicalId(teamId);
}
