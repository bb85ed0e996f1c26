import type { JsMsg } from '@orbital/bus';
import { canonicalSatelliteEvent, headerNames, type SatelliteEvent } from '@orbital/contracts';
import { handleSatelliteEvent, type StoredAlone } from './handleSatelliteEvent.ts';
import type { EventSource, SatelliteEventDeps } from './satelliteEventDeps.ts';
import { storeLogLines, storeToolExecutions } from './storeEventRuns.ts';

type ToolExecuted = Extract<SatelliteEvent, { type: 'mcp.tool.executed' }>;
type LogLines = Extract<SatelliteEvent, { type: 'mcp.server.logs' }>;

/** A message as the consumer hands it over: its payload checked against its event's contract. */
export type DeliveredEvents = { payload: SatelliteEvent | { events: SatelliteEvent[] }; message: JsMsg };

/**
 * Events of one type in stream order, from the satellite that sent them: a message as gateway-api
 * made it (a run of one type, `evt.satellite.<id>.batch.<type>`), the single event an older gateway-api
 * stored, or several such messages in a row, which are stored together.
 */
type Run = { type: SatelliteEvent['type']; events: SatelliteEvent[]; source: EventSource };

/** The types whose runs are stored in a few statements; any other event is stored on its own. */
const storedTogether = new Set<SatelliteEvent['type']>(['mcp.tool.executed', 'mcp.server.logs']);

/**
 * The satellite events a consumer fetched together, stored together: the tool executions of a run in
 * one transaction (one lock statement for their installations, one multi-row insert, at most one status
 * change per installation), the log lines of a run in another, every other event as it comes, in stream
 * order. Each row is keyed by its event id, so a redelivered batch stores nothing twice and publishes
 * again under the same message ids, which JetStream drops.
 *
 * The runs are gateway-api's: each message already holds events of one type in the satellite's order,
 * and is taken as it is; consecutive messages of one type that is stored together share a transaction.
 *
 * The consumer has checked every payload against its event's contract (one that breaks it was given
 * back to be handled alone, and parked); a batch that fails otherwise is handled one message at a time
 * by the consumer, so one bad event costs only its own outcome.
 *
 * Events enter the storage path here, and here only: their ids and installation ids are put in their
 * canonical form (a UUID a satellite wrote in capitals, in lower case, as PostgreSQL returns it), so
 * every lookup, comparison, insert and announcement after uses the ids of the rows.
 */
export async function storeSatelliteEventBatch(deps: SatelliteEventDeps, delivered: DeliveredEvents[]): Promise<void> {
  for (const run of consecutive(delivered.map(runOf))) {
    // A message's events share its type (each was checked against the element schema of its type's
    // batch), so the run's type is every event's.
    if (run.type === 'mcp.tool.executed') await storeToolExecutions(deps, run.events as ToolExecuted[]);
    else if (run.type === 'mcp.server.logs') await storeLogLines(deps, run.events as LogLines[]);
    else for (const event of run.events as StoredAlone[]) await handleSatelliteEvent(deps, event, run.source);
  }
}

/** The run one message carries, its ids canonical; the satellite as gateway-api stamped it on the message. */
function runOf({ payload, message }: DeliveredEvents): Run | null {
  const events = ('events' in payload ? payload.events : [payload]).map(canonicalSatelliteEvent);
  const [first] = events;
  if (!first) return null;
  const source = {
    satelliteId: message.headers?.get(headerNames.satelliteId) || null,
    teamId: message.headers?.get(headerNames.teamId) || null,
  };
  return { type: first.type, events, source };
}

/** Runs in order, consecutive runs of a type stored together joined into one. */
function consecutive(runs: Array<Run | null>): Run[] {
  const joined: Run[] = [];
  for (const run of runs) {
    if (!run) continue;
    const last = joined[joined.length - 1];
    if (last && last.type === run.type && storedTogether.has(run.type)) last.events.push(...run.events);
    else joined.push(run);
  }
  return joined;
}
