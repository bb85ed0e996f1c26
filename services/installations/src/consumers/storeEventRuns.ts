import { createHash } from 'node:crypto';
import { publishData, publishEvent } from '@orbital/bus';
import {
  eventSubject,
  type InstallationLogAppended,
  type InstallationRequestLogged,
  installationLogAppendedEvent,
  installationRequestLoggedEvent,
  type SatelliteEvent,
} from '@orbital/contracts';
import { insertLogLinesOfEvents, insertRequestLogs } from '../db/monitoringQueries.ts';
import type { InstallationRow, RequestLogRow } from '../db/rows.ts';
import { applyStatusTrigger } from '../domain/applyStatusTrigger.ts';
import { nextStatus } from '../domain/nextStatus.ts';
import { requestLogView } from '../domain/views.ts';
import { knownInstallations } from './knownInstallations.ts';
import type { SatelliteEventDeps } from './satelliteEventDeps.ts';

type ToolExecuted = Extract<SatelliteEvent, { type: 'mcp.tool.executed' }>;
type LogLines = Extract<SatelliteEvent, { type: 'mcp.server.logs' }>;

/** The installation a tool execution or a batch of log lines is about. */
const installationOf = (event: { data: { installation_id: string; team_id: string } }) => ({
  installationId: event.data.installation_id,
  teamId: event.data.team_id,
});

/**
 * Tool executions stored together, one transaction: their installations locked in one statement (id
 * order), one multi-row insert keyed by event id, at most the status writes a call changes, in stream
 * order; after commit, one request-logged message per installation (or a few, for many or long rows).
 */
export async function storeToolExecutions(deps: SatelliteEventDeps, events: ToolExecuted[]): Promise<void> {
  const { stored, known, statusChanged } = await deps.pool.get().transaction(async (tx) => {
    const { known, rows: byId } = await knownInstallations(deps, tx, events, installationOf, { lock: true });
    const stored = await insertRequestLogs(
      tx,
      known.map((event) => {
        const d = event.data;
        const row = byId.get(d.installation_id) as InstallationRow;
        // The satellite leaves the response out while the configuration it holds says logging is off, so
        // it never leaves the machine; the installation's setting now is what decides whether it is stored
        // (a call made before the satellite received the change still carries one).
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
  const byInstallation = new Map<string, { teamId: string; rows: RequestLogRow[] }>();
  for (const event of known) {
    // Event ids are canonical (storeSatelliteEventBatch): as PostgreSQL gives the stored ids back.
    const row = rowsById.get(event.id);
    if (!row) continue;
    // A row is announced once, though its id may come twice in one batch.
    rowsById.delete(event.id);
    const group = byInstallation.get(event.data.installation_id) ?? { teamId: event.data.team_id, rows: [] };
    group.rows.push(row);
    byInstallation.set(event.data.installation_id, group);
  }
  await Promise.all(
    [...byInstallation].flatMap(([installationId, group]) => {
      const subject = eventSubject(installationRequestLoggedEvent, {
        installation_id: installationId,
        team_id: group.teamId,
        requests: [],
      });
      const head = `{"installation_id":${JSON.stringify(installationId)},"team_id":${JSON.stringify(group.teamId)},"requests":[`;
      return chunksOf(group.rows).map((chunk) =>
        publishData(deps.bus, subject, `${head}${chunk.encoded.join(',')}]}`, {
          msgId: `req-${digestOf(chunk.ids)}`,
        }),
      );
    }),
  );
}

/** A message holds at most this many request logs, and about this many bytes of them. */
const maxRowsPerMessage = 200;
const maxBytesPerMessage = 256 * 1024;

/**
 * Rows in order as their views, each encoded once, cut where a message would grow too long (a row alone
 * may be longer: it goes alone). The views are published as encoded, without the check publishEvent
 * makes: a row is made of fields the satellite event's contract checked (its id a UUID, its installation
 * one of the rows just locked, its timestamp written by Date) and typed as the view, and that check cost
 * the consumer about a tenth of its CPU. The integration tests read every announcement through the
 * event's contract.
 */
function chunksOf(rows: readonly RequestLogRow[]): Array<{ ids: string[]; encoded: string[] }> {
  const chunks: Array<{ ids: string[]; encoded: string[] }> = [];
  let chunk: { ids: string[]; encoded: string[] } = { ids: [], encoded: [] };
  let bytes = 0;
  for (const row of rows) {
    const view: InstallationRequestLogged['requests'][number] = requestLogView(row, true);
    const encoded = JSON.stringify(view);
    if (
      chunk.ids.length > 0 &&
      (chunk.ids.length >= maxRowsPerMessage || bytes + encoded.length > maxBytesPerMessage)
    ) {
      chunks.push(chunk);
      chunk = { ids: [], encoded: [] };
      bytes = 0;
    }
    chunk.ids.push(row.id);
    chunk.encoded.push(encoded);
    bytes += encoded.length;
  }
  if (chunk.ids.length > 0) chunks.push(chunk);
  return chunks;
}

/**
 * The message id of some rows published together: the same rows give the same id, so a batch stored
 * again after a redelivery is dropped by JetStream. Redelivered messages cut into other batches give
 * other ids: readers merge updates by row id.
 */
function digestOf(ids: string[]): string {
  return createHash('sha256').update(ids.join(',')).digest('base64url').slice(0, 32);
}

/** Log lines of many events in one insert, each line once; each event's lines published after. */
export async function storeLogLines(deps: SatelliteEventDeps, events: LogLines[]): Promise<void> {
  const db = deps.pool.get();
  const { known } = await knownInstallations(deps, db, events, installationOf, { lock: false });
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
