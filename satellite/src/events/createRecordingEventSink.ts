import type { SatelliteEvent, SatelliteEventData, SatelliteEventType } from '@orbital/contracts';
import { buildSatelliteEvent } from './buildSatelliteEvent.ts';
import type { EventSink } from './eventSink.ts';

export type RecordedEvent<T extends SatelliteEventType> = Extract<SatelliteEvent, { type: T }>;

export type RecordingEventSink = EventSink & {
  readonly events: SatelliteEvent[];
  /** Events that failed their schema; a test expects this to stay empty. */
  readonly invalid: { type: string; issues: { path: string; message: string }[] }[];
  ofType<T extends SatelliteEventType>(type: T): SatelliteEventData<T>[];
  /**
   * Resolves with the first event of `type` (already recorded or still to come) that matches; lets
   * tests wait for what the runtime does instead of sleeping.
   */
  waitFor<T extends SatelliteEventType>(
    type: T,
    match?: (data: SatelliteEventData<T>) => boolean,
    options?: { timeoutMs?: number; after?: number },
  ): Promise<SatelliteEventData<T>>;
};

/** A sink that keeps every validated event in memory, for tests and benchmarks. */
export function createRecordingEventSink(): RecordingEventSink {
  const events: SatelliteEvent[] = [];
  const invalid: RecordingEventSink['invalid'] = [];
  const waiters = new Set<(event: SatelliteEvent) => void>();
  return {
    events,
    invalid,
    emit(type, data) {
      const built = buildSatelliteEvent(type, data);
      if (!built.ok) {
        invalid.push({ type: built.type, issues: built.issues });
        return;
      }
      events.push(built.event);
      for (const waiter of [...waiters]) waiter(built.event);
    },
    ofType<T extends SatelliteEventType>(type: T) {
      return events.filter((e) => e.type === type).map((e) => e.data as SatelliteEventData<T>);
    },
    waitFor(type, match = () => true, options = {}) {
      type Data = SatelliteEventData<typeof type>;
      const matches = (event: SatelliteEvent) => event.type === type && match(event.data as Data);
      const existing = events.slice(options.after ?? 0).find(matches);
      if (existing) return Promise.resolve(existing.data as Data);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no ${type} event within ${options.timeoutMs ?? 20000} ms`));
        }, options.timeoutMs ?? 20000);
        const waiter = (event: SatelliteEvent) => {
          if (!matches(event)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(event.data as Data);
        };
        waiters.add(waiter);
      });
    },
  };
}
