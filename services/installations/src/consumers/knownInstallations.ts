import type { CommonQueryMethods } from '@orbital/db';
import { findInstallationsById, lockInstallationsById } from '../db/installationQueries.ts';
import type { InstallationRow } from '../db/rows.ts';
import { belongsToTeam } from '../domain/belongsToTeam.ts';
import type { SatelliteEventDeps } from './satelliteEventDeps.ts';

/** An event and the installation it is about, as the event names it (its ids canonical). */
export type InstallationRef = { installationId: string; teamId: string };

export type KnownInstallations<E> = {
  /** The events whose installation exists and belongs to the team the event claims, in their order. */
  known: E[];
  /** Their installations' rows, by id (only theirs: never the row of a team an event did not name). */
  rows: Map<string, InstallationRow>;
};

/**
 * The one place a satellite event's installation is judged: it must exist and belong to the team the
 * event names. gateway-api has confined a team satellite to its own team's events; this is what keeps
 * a global satellite (or a stale one) from writing into an installation of another team, and what lets
 * an event about an installation deleted since be dropped instead of failing for ever. The rest are
 * ignored with a warning, each once. `lock` takes the rows `FOR UPDATE` in id order, for the writers
 * that change them.
 */
export async function knownInstallations<E>(
  deps: SatelliteEventDeps,
  db: CommonQueryMethods,
  events: readonly E[],
  refOf: (event: E) => InstallationRef,
  options: { lock: boolean },
): Promise<KnownInstallations<E>> {
  const ids = [...new Set(events.map((event) => refOf(event).installationId))];
  const found = options.lock ? await lockInstallationsById(db, ids) : await findInstallationsById(db, ids);
  const byId = new Map(found.map((row) => [row.id, row]));
  const rows = new Map<string, InstallationRow>();
  const known = events.filter((event) => {
    const { installationId, teamId } = refOf(event);
    const row = byId.get(installationId);
    if (row && belongsToTeam(row, teamId)) {
      rows.set(row.id, row);
      return true;
    }
    deps.logger.warn(
      { installation_id: installationId, team_id: teamId },
      'satellite event for an unknown installation ignored',
    );
    return false;
  });
  return { known, rows };
}
