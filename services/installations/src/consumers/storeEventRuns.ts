import { publishEvent } from '@orbital/bus';
import {
  type InstallationLogAppended,
  type InstallationRequestLogged,
  installationLogAppendedEvent,
  installationRequestLoggedEvent,
  type SatelliteEvent,
} from '@orbital/contracts';
import { findInstallationsById, lockInstallationsById } from '../db/installationQueries.ts';
import { insertLogLinesOfEvents, insertRequestLogs } from '../db/monitoringQueries.ts';
import type { InstallationRow } from '../db/rows.ts';
import { applyStatusTrigger } from '../domain/applyStatusTrigger.ts';
import { nextStatus } from '../domain/nextStatus.ts';
import { requestLogView } from '../domain/views.ts';
import type { SatelliteEventDeps } from './satelliteEventDeps.ts';

type ToolExecuted = Extract<SatelliteEvent, { type: 'mcp.tool.executed' }>;
type LogLines = Extract<SatelliteEvent, { type: 'mcp.server.logs' }>;

/** Events naming an installation that exists and belongs to the team they claim; the rest are ignored. */
function ofKnownInstallations<E extends { data: { installation_id: string; team_id: string } }>(
  deps: SatelliteEventDeps,
  events: E[],
  rows: readonly InstallationRow[],
): E[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return events.filter((event) => {
    const row = byId.get(event.data.installation_id);
    if (row && row.team_id === event.data.team_id) return true;
    deps.logger.warn(
      { installation_id: event.data.installation_id, team_id: event.data.team_id },
      'satellite event for an unknown installation ignored',
    );
    return false;
  });
}

/**
 * Tool executions stored together, one transaction: their installations locked in one statement (id
 * order), one multi-row insert keyed by event id, at most the status writes a call changes, in stream
 * order; the request-logged events published after commit under message ids of the event ids.
 */
export async function storeToolExecutions(deps: SatelliteEventDeps, events: ToolExecuted[]): Promise<void> {
  const ids = [...new Set(events.map((e) => e.data.installation_id))];
  const { stored, known, statusChanged } = await deps.pool.get().transaction(async (tx) => {
    const rows = await lockInstallationsById(tx, ids);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const known = ofKnownInstallations(deps, events, rows);
    const stored = await insertRequestLogs(
      tx,
      known.map((event) => {
        const d = event.data;
        const row = byId.get(d.installation_id) as InstallationRow;
        // Enforced here as well as on the satellite: a response is kept only while logging is on.
        const keep = row.settings.request_logging_enabled && d.tool_response !== undefined;
        return {
          id: event.id,
          installationId: d.installation_id,
          teamId: d.team_id,
          toolName: d.tool_name,
          requestParams: d.request_params,
          toolResponse: keep ? d.tool_response : undefined,
          durationMs: d.duration_ms,
          success: d.success,
          errorMessage: d.error_message,
          timestamp: d.executed_at,
        };
      }),
    );
    // In stream order, as one event at a time would: only a call that changes the status writes.
    let statusChanged = false;
    for (const event of known) {
      const row = byId.get(event.data.installation_id) as InstallationRow;
      const trigger = { kind: 'tool_executed', success: event.data.success } as const;
      if (!nextStatus(row.status, trigger)) continue;
      const updated = await applyStatusTrigger(tx, row, trigger, event.timestamp);
      if (updated) {
        byId.set(updated.id, updated);
        statusChanged = true;
      }
    }
    return { stored, known, statusChanged };
  });
  if (statusChanged) await deps.relay.flush();
  const rowsById = new Map(stored.map((row) => [row.id, row]));
  await Promise.all(
    known.map((event) => {
      const row = rowsById.get(event.id);
      if (!row) return undefined;
      const logged: InstallationRequestLogged = {
        installation_id: event.data.installation_id,
        team_id: event.data.team_id,
        request: requestLogView(row, true),
      };
      return publishEvent(deps.bus, installationRequestLoggedEvent, logged, {
        msgId: `req-${event.id}`,
      });
    }),
  );
}

/** Log lines of many events in one insert, each line once; each event's lines published after. */
export async function storeLogLines(deps: SatelliteEventDeps, events: LogLines[]): Promise<void> {
  const db = deps.pool.get();
  const rows = await findInstallationsById(db, [...new Set(events.map((e) => e.data.installation_id))]);
  const known = ofKnownInstallations(deps, events, rows);
  const stored = await db.transaction((tx) =>
    insertLogLinesOfEvents(
      tx,
      known.map((event) => ({
        eventId: event.id,
        installationId: event.data.installation_id,
        teamId: event.data.team_id,
        lines: event.data.lines,
      })),
    ),
  );
  const linesByEvent = new Map<string, InstallationLogAppended['lines']>();
  for (const { event_id: eventId, ...line } of stored) {
    const lines = linesByEvent.get(eventId) ?? [];
    lines.push(line);
    linesByEvent.set(eventId, lines);
  }
  await Promise.all(
    known.map((event) => {
      const lines = linesByEvent.get(event.id);
      if (!lines) return undefined;
      const appended: InstallationLogAppended = {
        installation_id: event.data.installation_id,
        team_id: event.data.team_id,
        lines,
      };
      return publishEvent(deps.bus, installationLogAppendedEvent, appended, {
        msgId: `log-${event.id}`,
      });
    }),
  );
}
