import { type InstallationStatusChanged, installationStatusChangedEvent } from '@orbital/contracts';
import type { CommonQueryMethods } from '@orbital/db';
import { writeStatus } from '../db/installationQueries.ts';
import type { InstallationRow } from '../db/rows.ts';
import { nextStatus, type StatusTrigger } from './nextStatus.ts';
import { queueEvent } from './outboxRelay.ts';
import { statusView } from './views.ts';

/**
 * Applies a trigger to a locked installation row: decides with the pure machine, stamps the change,
 * and queues its status change event in the same transaction. `sourceAt` is the satellite
 * time of the event; an event older than the one behind the current status is ignored, so a late
 * redelivery cannot undo a newer change.
 */
export async function applyStatusTrigger(
  tx: CommonQueryMethods,
  row: InstallationRow,
  trigger: StatusTrigger,
  sourceAt: string | null = null,
): Promise<InstallationRow | null> {
  if (sourceAt && row.status_source_at && Date.parse(sourceAt) < Date.parse(row.status_source_at)) return null;
  const change = nextStatus(row.status, trigger);
  if (!change) return null;
  const updated = await writeStatus(tx, { id: row.id, status: change.status, message: change.message, sourceAt });
  const event: InstallationStatusChanged = {
    ...statusView(updated),
    previous_status: row.status,
    changed_at: updated.status_updated_at,
    reason: change.reason,
  };
  await queueEvent(tx, installationStatusChangedEvent, event);
  return updated;
}
