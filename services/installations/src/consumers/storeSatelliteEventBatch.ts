import type { JsMsg } from '@orbital/bus';
import { canonicalSatelliteEvent, headerNames, type SatelliteEvent } from '@orbital/contracts';
import { handleSatelliteEvent } from './handleSatelliteEvent.ts';
import type { SatelliteEventDeps } from './satelliteEventDeps.ts';
import { storeLogLines, storeToolExecutions } from './storeEventRuns.ts';

type ToolExecuted = Extract<SatelliteEvent, { type: 'mcp.tool.executed' }>;
type LogLines = Extract<SatelliteEvent, { type: 'mcp.server.logs' }>;
type Item = { payload: SatelliteEvent; message: JsMsg };
type Parsed = { event: SatelliteEvent; message: JsMsg };

/**
 * The satellite events a consumer fetched together, stored together: the tool executions of a run in
 * one transaction (one lock statement for their installations, one multi-row insert, at most one status
 * change per installation), the log lines of a run in another, every other event as it comes, in stream
 * order. Each row is keyed by its event id, so a redelivered batch stores nothing twice and publishes
 * again under the same message ids, which JetStream drops.
 *
 * The consumer has checked every payload against its event's contract (one that breaks it was given
 * back to be handled alone, and parked); a batch that fails otherwise is handled one event at a time by
 * the consumer, so one bad event costs only its own outcome.
 *
 * Events enter the storage path here, and here only: their ids and installation ids are put in their
 * canonical form (a UUID a satellite wrote in capitals, in lower case, as PostgreSQL returns it), so
 * every lookup, comparison, insert and announcement after uses the ids of the rows.
 */
export async function storeSatelliteEventBatch(deps: SatelliteEventDeps, items: Item[]): Promise<void> {
  const parsed: Parsed[] = items.map((item) => ({
    event: canonicalSatelliteEvent(item.payload),
    message: item.message,
  }));
  for (const run of runsOf(parsed)) {
    if (run.kind === 'mcp.tool.executed') await storeToolExecutions(deps, run.events as ToolExecuted[]);
    else if (run.kind === 'mcp.server.logs') await storeLogLines(deps, run.events as LogLines[]);
    else {
      for (const { event, message } of run.items) {
        await handleSatelliteEvent(deps, event, {
          satelliteId: message.headers?.get(headerNames.satelliteId) || null,
          teamId: message.headers?.get(headerNames.teamId) || null,
        });
      }
    }
  }
}

/** Consecutive events of one batched type form a run; any other event is a run of its own. */
function runsOf(parsed: Parsed[]) {
  const runs: Array<{ kind: string; events: SatelliteEvent[]; items: Parsed[] }> = [];
  for (const item of parsed) {
    const kind =
      item.event.type === 'mcp.tool.executed' || item.event.type === 'mcp.server.logs' ? item.event.type : 'single';
    const last = runs[runs.length - 1];
    if (last && last.kind === kind && kind !== 'single') {
      last.events.push(item.event);
      last.items.push(item);
    } else {
      runs.push({ kind, events: [item.event], items: [item] });
    }
  }
  return runs;
}
