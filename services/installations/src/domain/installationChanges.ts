import { randomUUID } from 'node:crypto';
import { type AuditContext, recordAudit } from '@orbital/audit';
import type { AuditAction, AuditDetails } from '@orbital/contracts';
import type { CommonQueryMethods } from '@orbital/db';
import { AppError } from '@orbital/errors';
import * as q from '../db/installationQueries.ts';
import type { InstallationRow } from '../db/rows.ts';
import { queueCommand } from './outboxRelay.ts';

// What every change to an installation goes through, whichever operations make it (installations, tool
// policies, pinned tool definitions): finding the team's installation, and telling its satellites.

type ConfigureEvent = 'mcp_installation_created' | 'mcp_installation_updated' | 'mcp_installation_deleted';

/** The command telling the satellites serving the installation's team to configure it, saying why. */
export function configureCommand(row: Pick<InstallationRow, 'id' | 'team_id'>, event: ConfigureEvent) {
  return {
    command_type: 'configure' as const,
    priority: 'high' as const,
    payload: { team_id: row.team_id, event, installation_id: row.id },
    correlation_id: `${event}:${row.id}:${randomUUID()}`,
  };
}

/** The installation of that team, optionally locked for a change; not_found when the team has no such one. */
export async function mustFindInstallation(
  db: CommonQueryMethods,
  teamId: string,
  id: string,
  lock = false,
): Promise<InstallationRow> {
  const row = await q.findInstallation(db, teamId, id, lock);
  if (!row) throw new AppError('not_found', 'No such installation in this team', { details: { installation_id: id } });
  return row;
}

/** Tells the satellites serving the installation's team to configure it again (queued in the transaction). */
export async function reconfigure(tx: CommonQueryMethods, installation: Pick<InstallationRow, 'id' | 'team_id'>) {
  await queueCommand(tx, configureCommand(installation, 'mcp_installation_updated'));
}

/** reconfigure() for each of the installations. */
export async function reconfigureEach(
  tx: CommonQueryMethods,
  installations: readonly Pick<InstallationRow, 'id' | 'team_id'>[],
): Promise<void> {
  for (const installation of installations) await reconfigure(tx, installation);
}

/**
 * A change to one installation, in its transaction: the satellites serving its team are told to configure
 * it again (after commit, by the relay), and the change is audited against the installation and its team.
 */
export async function reconfigureAudited(
  tx: CommonQueryMethods,
  installation: Pick<InstallationRow, 'id' | 'team_id'>,
  change: { who: AuditContext; action: AuditAction; details: AuditDetails; event?: ConfigureEvent },
): Promise<void> {
  await queueCommand(tx, configureCommand(installation, change.event ?? 'mcp_installation_updated'));
  await recordAudit(tx, {
    ...change.who,
    action: change.action,
    target: { kind: 'installation', id: installation.id },
    team_id: installation.team_id,
    details: change.details,
  });
}
