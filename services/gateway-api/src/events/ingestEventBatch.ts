import { type Bus, checkEventPart } from '@orbital/bus';
import {
  type EventBatchReply,
  type EventBatchRequest,
  type EventResult,
  headerNames,
  installationIdFields,
  isIssuedInstallationId,
  parseSatelliteEvent,
  type SatelliteEvent,
  type SatelliteEventType,
  type SatelliteIdentity,
  satelliteEvents,
} from '@orbital/contracts';
import { type EventToStore, publishEventRuns, type SatelliteEventPart } from './publishEventRuns.ts';

export type IngestOptions = {
  requestId?: string;
  /** How long to wait for JetStream to store each event before answering 503. */
  publishTimeoutMs?: number;
};

/**
 * Installation ids in event data: the backend issues them, as UUIDs. The event schemas accept any id
 * (a standalone satellite names its servers itself), but an event sent here naming anything else could
 * never be applied: it is refused now, naming the field, instead of failing in a consumer. A UUID in
 * capitals is accepted; the installations service compares it in its canonical form.
 */
function idProblems(event: SatelliteEvent): Array<{ path: string; message: string }> {
  const data = event.data as Record<string, unknown>;
  return installationIdFields
    .filter((field) => typeof data[field] === 'string' && !isIssuedInstallationId(data[field] as string))
    .map((field) => ({ path: `data.${field}`, message: 'must be an id issued by the backend (UUID)' }));
}

function teamOf(event: SatelliteEvent): string | null {
  const data = event.data as { team_id?: string | null };
  return data.team_id ?? null;
}

type Checked =
  | { success: true; event: SatelliteEvent; part: SatelliteEventPart }
  | { success: false; issues: Array<{ path: string; message: string }> };

/**
 * One check per event, against the contract of the event it is stored as (the schema publishEvent would
 * check again; it is checked here once, so the bytes are published as they are). An event of no known
 * type is left to parseSatelliteEvent, which says what is wrong with its envelope.
 */
function checkEvent(raw: unknown): Checked {
  const type = (raw as { type?: unknown } | null)?.type;
  let def = satelliteEvents[type as SatelliteEventType];
  if (typeof type !== 'string' || !Object.hasOwn(satelliteEvents, type)) {
    const parsed = parseSatelliteEvent(raw);
    if (!parsed.success) return parsed;
    def = satelliteEvents[parsed.event.type];
  }
  const result = checkEventPart(def, raw);
  if (!result.success) {
    return { success: false, issues: result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) };
  }
  return { success: true, event: result.data as SatelliteEvent, part: result.part };
}

/**
 * Validates a batch of satellite events one by one and stores the valid ones in JetStream, each run of
 * consecutive events of one type as one message (`evt.satellite.<satellite_id>.batch.<type>`, the
 * satellite and its team in headers, publishEventRuns), answering per event.
 *
 * - The batch as a whole (`{events: [...]}` with 1 to 100 events) was checked by the route, whose body
 *   schema it is (eventBatchRequest): a body that is not one is answered 400 before this is called.
 * - An invalid event, or one naming a team a team satellite does not serve, is `rejected` with the
 *   reason: it can never succeed, so the satellite drops it. The others are stored regardless.
 * - When JetStream does not confirm every valid event, the call fails with `unavailable` (503) and the
 *   satellite keeps the whole batch; the events that were stored are dropped as duplicates on the retry.
 */
export async function ingestEventBatch(
  bus: Bus,
  satellite: SatelliteIdentity,
  batch: EventBatchRequest,
  options: IngestOptions = {},
): Promise<EventBatchReply> {
  const headers: Record<string, string> = { [headerNames.satelliteId]: satellite.satellite_id };
  if (satellite.team_id) headers[headerNames.teamId] = satellite.team_id;
  if (options.requestId) headers[headerNames.requestId] = options.requestId;

  const results: EventResult[] = [];
  const toStore: EventToStore[] = [];
  batch.events.forEach((raw, index) => {
    const rawId = (raw as { id?: unknown } | null)?.id;
    const id = typeof rawId === 'string' ? rawId : null;
    const parsed = checkEvent(raw);
    if (!parsed.success) {
      results[index] = {
        index,
        id,
        status: 'rejected',
        error: { code: 'validation_failed', message: 'The event does not match its type', details: parsed.issues },
      };
      return;
    }
    const event = parsed.event;
    const problems = idProblems(event);
    if (problems.length > 0) {
      results[index] = {
        index,
        id,
        status: 'rejected',
        error: { code: 'validation_failed', message: 'The event names an unknown kind of id', details: problems },
      };
      return;
    }
    const team = teamOf(event);
    if (satellite.satellite_type === 'team' && team !== null && team !== satellite.team_id) {
      results[index] = {
        index,
        id,
        status: 'rejected',
        error: { code: 'forbidden', message: 'A team satellite may only report events of its own team' },
      };
      return;
    }
    toStore.push({ index, event, part: parsed.part });
  });
  const acks = await publishEventRuns(bus, satellite.satellite_id, toStore, {
    headers,
    ...(options.publishTimeoutMs ? { timeoutMs: options.publishTimeoutMs } : {}),
  });
  for (const { index, event } of toStore) {
    results[index] = { index, id: event.id, status: 'accepted', duplicate: acks.get(index)?.duplicate ?? false };
  }
  const accepted = results.filter((r) => r.status === 'accepted').length;
  return { accepted, rejected: results.length - accepted, results };
}
